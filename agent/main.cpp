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

#include "agent/etcdproxy/cli/etcd_proxy_command.hpp"
#include "agent/manager/cli/manager_command.hpp"
#include "agent/node/cli/node_command.hpp"
#include "agent/node/reconfig/cli/cni_switch_command.hpp"
#include "agent/node/reconfig/cli/reconfigure_node_command.hpp"
#include "agent/path_probe/cli/path_probe_command.hpp"
#include "agent/podpreset/cli/pod_preset_command.hpp"
#include "agent/roles/options.hpp"
#include "agent/roles/process_image.hpp"
#include "agent/roles/role_command.hpp"
#include "agent/roles/run.hpp"
#include "agent/tenancy/cli/tenancy_command.hpp"
#include "shared/util/build_info.hpp"
#include "shared/util/edit_distance.hpp"

namespace {

using fed::agent::kExitUsage;

template <typename Command>
std::unique_ptr<fed::agent::RoleCommand> make(CLI::App& subcommand) {
  return std::make_unique<Command>(subcommand);
}

// Every subcommand of fed-agent but `version`, in the order --help lists them.
struct RoleEntry {
  const char* name;
  const char* help;
  fed::agent::RoleCommandFactory make;
};
constexpr RoleEntry kRoles[] = {
    {"node", "Run the per-node agent (DaemonSet)", make<fed::federation::NodeCommand>},
    {"manager", "Run the federation controllers (Deployment)",
     make<fed::federation::ManagerCommand>},
    {"etcd-proxy", "Run the leader-aware etcd proxy beside kube-apiserver (--members required)",
     make<fed::etcdproxy::EtcdProxyCommand>},
    {"tenancy", "Run a provider's tenancy enforcement on a member (Deployment)",
     make<fed::tenancy::TenancyCommand>},
    {"podpreset", "Serve the PodPreset webhook on a cluster (Deployment; seed 003 T1)",
     make<fed::podpreset::PodPresetCommand>},
    {"reconfigure-node",
     "Change allow-listed KubeletConfiguration fields of this node: backup, atomic rewrite, "
     "kubelet restart, health gate, rollback on failure (docs/RECONFIGURE.md)",
     make<fed::reconfig::ReconfigureNodeCommand>},
    {"cni-switch", "Install (or remove) the network configuration list new pods use",
     make<fed::reconfig::CniSwitchCommand>},
    {"probe", "One end of kubectl fed join --wait's data-path proof (--listen or --dial)",
     make<fed::probe::ProbeCommand>},
};

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
  std::vector<std::string> commands = {"version"};
  for (const auto& role : kRoles) commands.emplace_back(role.name);
  const std::vector<std::string> value_flags = {
      "--bind-address", "--metrics-bind-address", "--log-format", "-v", "--v", "--kubeconfig",
      "--context"};
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
      "Every role serves /healthz and /readyz, "
      "and /metrics to authorized callers.",
      "fed-agent"};
  app.require_subcommand(1);
  app.fallthrough();  // common flags are accepted after the subcommand too
  app.add_option("--bind-address", options.bind_address,
                 "host:port serving /healthz and /readyz. All interfaces by default because "
                 "kubelet probes reach the pod or node IP")
      ->capture_default_str();
  app.add_option("--metrics-bind-address", options.metrics_bind_address,
                 "host:port serving /metrics: HTTPS for callers whose token the API server "
                 "accepts and who may get the non-resource URL /metrics; plain HTTP, unchecked, "
                 "on a loopback address. Default 0.0.0.0:9441, for etcd-proxy 127.0.0.1:9442");
  app.add_option("--log-format", log_format, "Log format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("-v,--v", options.verbosity,
                 "Log level, klog style: 0 info, 1-4 debug, 5+ trace (also -v=N)")
      ->capture_default_str();
  app.add_option("--kubeconfig", options.kubeconfig,
                 "Path to a kubeconfig; empty means the in-cluster service account");
  app.add_option("--context", options.context, "kubeconfig context to use");

  std::vector<std::pair<CLI::App*, std::unique_ptr<fed::agent::RoleCommand>>> roles;
  for (const auto& role : kRoles) {
    CLI::App* subcommand = app.add_subcommand(role.name, role.help);
    roles.emplace_back(subcommand, role.make(*subcommand));
  }
  auto* version = app.add_subcommand("version", "Print the version and git commit");

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
  for (auto& [subcommand, command] : roles) {
    if (subcommand->parsed()) return command->run(options);
  }
  return kExitUsage;  // require_subcommand(1) makes this unreachable
}

}  // namespace

int main(int argc, char** argv) {
  fed::agent::remember_command_line(argc, argv);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    spdlog::critical("fed-agent: unexpected error: {}", e.what());
  } catch (...) {
    spdlog::critical("fed-agent: unexpected non-standard exception");
  }
  return 1;
}
