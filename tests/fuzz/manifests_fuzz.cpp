// YAML given to the plugin with -f (manifests, FeatureConfig documents) and the files a node's
// agent reads: the kubelet's config and a CNI conflist. The first byte picks one.

#include "agent/node/reconfig/config_file.hpp"
#include "plugin/reconfigure/feature_config.hpp"
#include "shared/fedapi/manifest.hpp"
#include "shared/reconfig/cni_conflist.hpp"
#include "shared/reconfig/kubelet_locations.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fed;
  auto in = fuzz::text(data, size);
  switch (fuzz::take_selector(in) % 4) {
    case 0:
      if (auto docs = fedapi::parse_manifests(in, "fuzz.yaml")) {
        for (const auto& doc : *docs) (void)plugin::read_feature_config(doc);
      }
      break;
    case 1:
      (void)reconfig::parse_kubelet_config(in, "config.yaml");
      break;
    case 2:
      (void)reconfig::parse_conflist(in, "10-fuzz.conflist");
      break;
    case 3:
      (void)reconfig::parse_kubelet_cmdline(in);
      break;
  }
  return 0;
}
