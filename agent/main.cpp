// fed-agent: one binary, one subcommand per role. Flags fill AgentOptions once; main wires
// each role to its runner explicitly and hands it to run_role().

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "etcdproxy/cli/etcd_proxy_flags.hpp"
#include "etcdproxy/etcd_proxy_runner.hpp"
#include "federation/cli/node_command.hpp"
#include "federation/manager_runner.hpp"
#include "podpreset/cli/pod_preset_command.hpp"
#include "probe/cli/probe_command.hpp"
#include "reconfig/cli/cni_switch_command.hpp"
#include "reconfig/cli/reconfigure_node_command.hpp"
#include "roles/options.hpp"
#include "roles/run.hpp"
#include "tenancy/cli/tenancy_command.hpp"
#include "util/build_info.hpp"
#include "util/edit_distance.hpp"

namespace {

constexpr int kExitUsage = 2;

// klog writes "-v=4"; CLI11 reads a short option's value only as "-v4" or "-v 4".
std::vector<std::string> normalize_args(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("-v=", 0) == 0) {
      args.emplace_back("-v");
      args.push_back(arg.substr(3));
    } else {
      args.push_back(std::move(arg));
    }
  }
  return args;
}

// For a parse failure caused by a mistyped subcommand: "unknown command "nod"; did you mean
// "node"?". Empty when the first word is a known subcommand or there is none.
std::string unknown_command_message(const std::vector<std::string>& args) {
  const std::vector<std::string> commands = {"node",       "manager",          "etcd-proxy",
                                             "tenancy",    "podpreset",        "version",
                                             "cni-switch", "reconfigure-node", "probe"};
  const std::vector<std::string> value_flags = {"--bind-address", "--log-format", "-v", "--v",
                                                "--kubeconfig",   "--context"};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (std::find(value_flags.begin(), value_flags.end(), arg) != value_flags.end()) {
      ++i;  // its value
      continue;
    }
    if (arg.empty() || arg[0] == '-') continue;
    if (std::find(commands.begin(), commands.end(), arg) != commands.end()) return "";
    std::string message = "unknown command \"" + arg + "\"";
    if (auto match = fed::util::closest_match(arg, commands)) {
      message += "; did you mean \"" + *match + "\"?";
    }
    return message;
  }
  return "";
}

int run(int argc, char** argv) {
  fed::agent::AgentOptions options;
  std::string log_format = "text";

  CLI::App app{
      "fed-agent runs one role of kubectl-fed's cluster federation: the per-node "
      "datapath (node), the federation controllers (manager), a provider's tenancy "
      "enforcement (tenancy), the PodPreset webhook (podpreset) or the etcd proxy (etcd-proxy). "
      "Every role serves /healthz, /readyz "
      "and /metrics.",
      "fed-agent"};
  app.require_subcommand(1);
  app.fallthrough();  // common flags are accepted after the subcommand too
  app.add_option("--bind-address", options.bind_address,
                 "host:port serving /healthz, /readyz and /metrics. All interfaces by default "
                 "because kubelet probes and Prometheus reach the pod or node IP")
      ->capture_default_str();
  app.add_option("--log-format", log_format, "Log format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("-v,--v", options.verbosity,
                 "Log level, klog style: 0 info, 1-4 debug, 5+ trace (also -v=N)")
      ->capture_default_str();
  app.add_option("--kubeconfig", options.kubeconfig,
                 "Path to a kubeconfig; empty means the in-cluster service account");
  app.add_option("--context", options.context, "kubeconfig context to use");

  auto* node = app.add_subcommand("node", "Run the per-node agent (DaemonSet)");
  const fed::federation::NodeCommand node_command(*node);
  auto* manager = app.add_subcommand("manager", "Run the federation controllers (Deployment)");
  fed::federation::ManagerOptions manager_options;
  manager
      ->add_option("--webhook-bind-address", manager_options.webhook_bind_address,
                   "host:port of the pod webhook (HTTPS); empty: no webhook")
      ->capture_default_str();
  manager->add_option("--webhook-cert-dir", manager_options.webhook_cert_dir,
                      "Where the webhook's serving certificate is written (default: a directory "
                      "under the temporary directory)");
  if (const char* pod_ip = std::getenv("POD_IP")) {
    manager_options.kubelet_advertise_address = pod_ip;
  }
  manager
      ->add_option("--kubelet-bind-address", manager_options.kubelet_bind_address,
                   "host:port of the virtual nodes' kubelet API (HTTPS: kubectl logs); empty: "
                   "none")
      ->capture_default_str();
  manager->add_option("--kubelet-advertise-address", manager_options.kubelet_advertise_address,
                      "The IP the virtual nodes publish for it (default: $POD_IP; none: the "
                      "kubelet API is not served)");
  manager->add_option("--kubelet-cert-dir", manager_options.kubelet_cert_dir,
                      "Where its certificates are written (default: a directory under the "
                      "temporary directory)");
  manager
      ->add_option("--offload-workers", manager_options.offload_workers,
                   "Workers of the namespace-offloading and namespace-map controllers")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  manager
      ->add_option("--kube-api-qps", manager_options.api_qps,
                   "Requests per second to the host API server, all controllers together")
      ->check(CLI::Range(1.0, 10000.0))
      ->capture_default_str();
  manager
      ->add_option("--kube-api-burst", manager_options.api_burst,
                   "Requests the manager may send at once above --kube-api-qps")
      ->check(CLI::Range(1, 20000))
      ->capture_default_str();
  auto* etcd_proxy = app.add_subcommand(
      "etcd-proxy", "Run the leader-aware etcd proxy beside kube-apiserver (--members required)");
  fed::etcdproxy::EtcdProxyFlags etcd_proxy_flags;
  fed::etcdproxy::add_etcd_proxy_flags(*etcd_proxy, etcd_proxy_flags);
  const fed::tenancy::TenancyCommand tenancy(app);
  const fed::podpreset::PodPresetCommand podpreset(app);
  auto* version = app.add_subcommand("version", "Print the version and git commit");
  const fed::reconfig::ReconfigureNodeCommand reconfigure_node(app);
  const fed::reconfig::CniSwitchCommand cni_switch(app);
  const fed::probe::ProbeCommand probe(app);

  const std::vector<std::string> args = normalize_args(argc, argv);
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string unknown = unknown_command_message(args);
    std::cerr << "fed-agent: " << (unknown.empty() ? std::string(e.what()) : unknown) << "\n"
              << "Run 'fed-agent --help' for usage.\n";
    return kExitUsage;
  }

  if (version->parsed()) {
    std::cout << "fed-agent " << fed::build::version() << " (commit " << fed::build::git_commit()
              << ")\n";
    return fed::agent::kExitOk;
  }
  auto format = fed::log::parse_format(log_format);
  if (!format) {
    std::cerr << "fed-agent: " << format.error().message() << "\n";
    return kExitUsage;
  }
  options.log_format = *format;
  if (auto valid = fed::agent::validate(options); !valid) {
    std::cerr << "fed-agent: " << valid.error().message() << "\n";
    return kExitUsage;
  }
  if (reconfigure_node.parsed()) return reconfigure_node.run(options);
  if (cni_switch.parsed()) return cni_switch.run();
  if (probe.parsed()) return probe.run();

  // Explicit wiring: each role's runner. A role gets its own runner when its controllers land.
  std::unique_ptr<fed::agent::RoleRunner> runner;
  if (node->parsed()) {
    if (node_command.uninstall()) return node_command.run_uninstall(options);
    auto made = node_command.runner();
    if (!made) {
      std::cerr << "fed-agent: " << made.error().message() << "\n";
      return kExitUsage;
    }
    runner = std::move(*made);
  }
  if (manager->parsed()) {
    runner = std::make_unique<fed::federation::ManagerRunner>(std::move(manager_options));
  }
  if (tenancy.parsed()) {
    auto made = tenancy.runner();
    if (!made) {
      std::cerr << "fed-agent: " << made.error().message() << "\n";
      return kExitUsage;
    }
    runner = std::move(*made);
  }
  if (podpreset.parsed()) runner = podpreset.runner();
  if (etcd_proxy->parsed()) {
    auto proxy_options = fed::etcdproxy::to_options(etcd_proxy_flags);
    if (!proxy_options) {
      std::cerr << "fed-agent: " << proxy_options.error().message() << "\n";
      return kExitUsage;
    }
    runner = std::make_unique<fed::etcdproxy::EtcdProxyRunner>(std::move(*proxy_options));
  }
  return fed::agent::run_role(*runner, options);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    spdlog::critical("fed-agent: unexpected error: {}", e.what());
  } catch (...) {
    spdlog::critical("fed-agent: unexpected non-standard exception");
  }
  return 1;
}
