#include "agent/manager/cli/manager_command.hpp"

#include <cstdlib>

#include "agent/roles/run.hpp"

namespace fed::federation {

ManagerCommand::ManagerCommand(CLI::App& command) {
  offload::OffloadOptions& offload = options_.offload;
  command
      .add_option("--webhook-bind-address", offload.webhook_bind_address,
                  "host:port of the pod webhook (HTTPS); empty: no webhook")
      ->capture_default_str();
  command.add_option("--webhook-cert-dir", offload.webhook_cert_dir,
                     "Where the webhook's serving certificate is written (default: a directory "
                     "under the temporary directory)");
  if (const char* pod_ip = std::getenv("POD_IP")) offload.kubelet_advertise_address = pod_ip;
  command
      .add_option("--kubelet-bind-address", offload.kubelet_bind_address,
                  "host:port of the virtual nodes' kubelet API (HTTPS: kubectl logs); empty: "
                  "none")
      ->capture_default_str();
  command.add_option("--kubelet-advertise-address", offload.kubelet_advertise_address,
                     "The IP the virtual nodes publish for it (default: $POD_IP; none: the "
                     "kubelet API is not served)");
  command.add_option("--kubelet-cert-dir", offload.kubelet_cert_dir,
                     "Where its certificates are written (default: a directory under the "
                     "temporary directory)");
  command
      .add_option("--offload-workers", offload.workers,
                  "Workers of the namespace-offloading and namespace-map controllers")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  command
      .add_option("--kube-api-qps", options_.api_qps,
                  "Requests per second to the host API server, all controllers together")
      ->check(CLI::Range(1.0, 10000.0))
      ->capture_default_str();
  command
      .add_option("--kube-api-burst", options_.api_burst,
                  "Requests the manager may send at once above --kube-api-qps")
      ->check(CLI::Range(1, 20000))
      ->capture_default_str();
}

int ManagerCommand::run(const agent::AgentOptions& options) {
  ManagerRunner runner(options_);
  return agent::run_role(runner, options);
}

}  // namespace fed::federation
