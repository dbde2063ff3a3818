// A kubeconfig file (YAML, user-supplied) and an exec credential plugin's stdout (JSON from a
// program the kubeconfig names). The first byte picks one.

#include "shared/kube/exec_credential.hpp"
#include "shared/kube/kubeconfig.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fed;
  auto in = fuzz::text(data, size);
  if (fuzz::take_selector(in) % 2 == 0) {
    (void)kube::parse_kubeconfig(in, "/fuzz/kubeconfig");
  } else {
    (void)kube::parse_exec_credential(in, "client.authentication.k8s.io/v1");
    (void)kube::parse_exec_credential(in, "client.authentication.k8s.io/v1beta1");
  }
  return 0;
}
