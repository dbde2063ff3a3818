#include "agent/node/reconfig/cli/reconfigure_node_command.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>

#include "agent/node/reconfig/kubelet_process.hpp"
#include "agent/node/reconfig/reconfigure_node.hpp"
#include "agent/roles/api_config.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/log/log.hpp"
#include "shared/reconfig/kubelet_locations.hpp"
#include "shared/util/duration.hpp"
#include "shared/util/strings.hpp"

namespace fed::reconfig {
namespace {

constexpr int kExitRolledBack = 1;
constexpr int kExitInvalid = 2;
constexpr int kExitUnavailable = 3;
constexpr int kExitPermission = 4;
constexpr int kExitConflict = 6;

int exit_code_for(const Error& error) {
  switch (error.code()) {
    case ErrorCode::Invalid:
    case ErrorCode::NotFound:
      return kExitInvalid;
    case ErrorCode::Unavailable:
      return kExitUnavailable;
    case ErrorCode::Conflict:
      return kExitConflict;
    case ErrorCode::Permission:
      return kExitPermission;
    default:
      return kExitRolledBack;
  }
}

// Where the file to rewrite is: explicit flags, else the distribution's row, else detection
// (on the node as req.node_root reaches it: the agent's own filesystem, or the host's).
Status resolve_target(const ReconfigureNodeFlags& flags, ReconfigureRequest& req) {
  const KubeletLayout* layout = nullptr;
  if (!flags.distribution.empty()) {
    FED_ASSIGN_OR_RETURN(layout, find_layout(flags.distribution));
  } else if (flags.kubelet_config.empty() && flags.kubelet_config_dir.empty()) {
    FED_ASSIGN_OR_RETURN(layout, detect_layout([&](std::string_view p) {
                           std::error_code ec;
                           return std::filesystem::exists(on_node(req, p), ec);
                         }));
  }
  if (!flags.kubelet_config.empty()) {
    req.config_file = flags.kubelet_config;
  } else if (!flags.kubelet_config_dir.empty()) {
    req.config_file = std::filesystem::path(flags.kubelet_config_dir) / kDropInFile;
    req.drop_in = true;
  } else {
    // A drop-in directory the node already has wins: the vendor's own file stays untouched.
    std::error_code ec;
    const bool has_dir = !layout->config_dir.empty() &&
                         std::filesystem::is_directory(on_node(req, layout->config_dir), ec);
    req.drop_in = has_dir || layout->config_file.empty();
    req.config_file = req.drop_in ? std::filesystem::path(layout->config_dir) / kDropInFile
                                  : std::filesystem::path(layout->config_file);
  }
  req.root_dir = !flags.root_dir.empty() ? std::filesystem::path(flags.root_dir)
                 : layout != nullptr     ? std::filesystem::path(layout->root_dir)
                                         : std::filesystem::path("/var/lib/kubelet");
  req.restart.service = !flags.service.empty() ? flags.service
                        : layout != nullptr    ? std::string(layout->service)
                                               : "kubelet";
  return ok();
}

// The kubelet of this node names its own files and its unit: no table, no flag. Its files are
// reached through its root directory, held open in `root` across its restarts. `method` is what
// restarts it when no flag says: its systemd unit, else its supervisor.
Status discover_target(const ReconfigureNodeFlags& flags, ReconfigureRequest& req, Fd& root,
                       std::string& method) {
  FED_ASSIGN_OR_RETURN(const KubeletProcess kubelet, find_node_kubelet());
  const std::string who = "the kubelet of this node (pid " + std::to_string(kubelet.pid) + ")";
  for (const auto* path : {&kubelet.flags.config, &kubelet.flags.config_dir}) {
    if (*path && !std::filesystem::path(**path).is_absolute()) {
      return Error(ErrorCode::Invalid, who + " names a relative path " + **path +
                                           "; give --kubelet-config with its absolute path");
    }
  }
  if (kubelet.flags.config_dir) {
    req.config_file = std::filesystem::path(*kubelet.flags.config_dir) / kDropInFile;
    req.drop_in = true;
  } else if (kubelet.flags.config) {
    req.config_file = *kubelet.flags.config;
  } else {
    return Error(ErrorCode::Invalid, who +
                                         " runs without --config or --config-dir: its settings "
                                         "are flags, which reconfigure does not rewrite");
  }
  req.root_dir = !flags.root_dir.empty() ? std::filesystem::path(flags.root_dir)
                 : kubelet.flags.root_dir.has_value()
                     ? std::filesystem::path(*kubelet.flags.root_dir)
                     : std::filesystem::path("/var/lib/kubelet");
  FED_ASSIGN_OR_RETURN(root, open_process_root(kubelet.pid));
  req.node_root = handle_path(root);
  if (!flags.service.empty()) {
    req.restart.service = flags.service;
  } else if (kubelet.systemd) {
    req.restart.service = *kubelet.systemd;
  }
  method = kubelet.systemd || !flags.service.empty() ? "systemd" : "supervisor";
  spdlog::info("{}: config {}{}, root dir {}, restarted by {}", who, req.config_file.string(),
               req.drop_in ? " (drop-in)" : "", req.root_dir.string(),
               method == "systemd" ? req.restart.service : "its supervisor");
  return ok();
}

// The request, and in `root` the handle its paths go through (if any).
Result<ReconfigureRequest> build_request(const ReconfigureNodeFlags& flags, Fd& root) {
  ReconfigureRequest req;
  FED_ASSIGN_OR_RETURN(req.changes, parse_set_args(flags.set));
  std::string method = flags.restart_method;
  std::string discovered_method;
  const bool told = !flags.kubelet_config.empty() || !flags.kubelet_config_dir.empty() ||
                    !flags.distribution.empty();
  Status discovered = ok();
  if (!told) discovered = discover_target(flags, req, root, discovered_method);
  if (!discovered && discovered.error().code() != ErrorCode::NotFound) return discovered.error();
  if (told || !discovered) {
    if (!told) {
      // No kubelet process of its own (k3s runs it inside k3s): the table, on the host's disk.
      spdlog::info("{}; looking for a known layout", discovered.error().message());
      FED_ASSIGN_OR_RETURN(root, open_process_root(1));
      req.node_root = handle_path(root);
    }
    FED_TRY(resolve_target(flags, req));
  }
  if (method.empty()) {
    method = !flags.restart_command.empty() ? "command"
             : flags.distribution == "k3s"  ? "k3s"
             : !discovered_method.empty()   ? discovered_method
                                            : "systemd";
  }
  FED_ASSIGN_OR_RETURN(req.restart.method, parse_restart_method(method));
  req.restart.command = util::split(flags.restart_command, ' ', util::EmptyParts::Skip);
  if (req.restart.method == RestartMethod::Command && req.restart.command.empty()) {
    return Error(ErrorCode::Invalid,
                 "--restart-method command needs --restart-command \"PROGRAM ARG...\"");
  }
  FED_ASSIGN_OR_RETURN(req.timeout, util::parse_positive_duration(flags.timeout, "--timeout"));
  return req;
}

Result<std::shared_ptr<kube::DynamicClient>> make_client(const agent::AgentOptions& common) {
  FED_ASSIGN_OR_RETURN(auto config, agent::api_config(common, "fed-agent/reconfigure-node"));
  // The health gate polls: one slow answer must not eat the whole timeout.
  config.request_timeout = std::chrono::seconds(10);
  kube::RestClientOptions options;
  options.max_retries = 2;
  options.backoff = {std::chrono::milliseconds(200), std::chrono::seconds(1), 2.0};
  return kube::DynamicClient::create(std::move(config), options);
}

}  // namespace

ReconfigureNodeCommand::ReconfigureNodeCommand(CLI::App& command) : app_(&command) {
  app_->add_option("--node", flags_.node, "this node's name (the Node object)")->required();
  app_->add_option("--set", flags_.set,
                   "field=value, repeatable: cpuManagerPolicy=static, reservedSystemCPUs=0, "
                   "featureGates.GATE=true, maxPods=50, ...")
      ->required();
  app_->add_option("--kubelet-config", flags_.kubelet_config,
                   "the kubelet's --config file (default: read from the command line of this "
                   "node's kubelet process, else a known layout)");
  app_->add_option("--kubelet-config-dir", flags_.kubelet_config_dir,
                   "the kubelet's --config-dir: write a drop-in there instead");
  app_->add_option("--distribution", flags_.distribution,
                   "kubeadm, k3s, eks, eks-al2023, aks or gke: use the shipped paths");
  app_->add_option(
      "--kubelet-root-dir", flags_.root_dir,
      "the kubelet's --root-dir, where its checkpoints are (default: the kubelet's own, "
      "else /var/lib/kubelet)");
  app_->add_option(
      "--restart-method", flags_.restart_method,
      "systemd (nsenter into PID 1), k3s, supervisor (stop the kubelet, wait for a new "
      "one) or command (default: the kubelet's systemd unit, else supervisor)");
  app_->add_option("--restart-command", flags_.restart_command,
                   "command that restarts the kubelet, words separated by spaces (no shell)");
  app_->add_option("--kubelet-service", flags_.service, "systemd unit of the kubelet");
  app_->add_option("--timeout", flags_.timeout, "health gate limit after each restart")
      ->capture_default_str();
}

int ReconfigureNodeCommand::run(const agent::AgentOptions& common) {
  log::init({common.log_format, agent::log_verbosity(common.verbosity)});
  Fd kubelet_root;  // outlives the request, whose paths may go through it
  auto req = build_request(flags_, kubelet_root);
  if (!req) {
    std::cerr << "fed-agent reconfigure-node: " << req.error().message() << "\n";
    return exit_code_for(req.error());
  }
  auto client = make_client(common);
  if (!client) {
    std::cerr << "fed-agent reconfigure-node: " << client.error().message() << "\n";
    return kExitInvalid;
  }
  NodeClient node(*client, flags_.node);
  auto report = reconfigure_node(node, *req);
  if (!report) {
    std::cerr << "fed-agent reconfigure-node: node " << flags_.node << ": "
              << report.error().message() << "\n";
    return exit_code_for(report.error());
  }
  const std::string changes = to_json(req->changes).dump();
  switch (report->outcome) {
    case Outcome::Applied:
      std::cout << flags_.node << ": applied " << changes << "\n";
      return 0;
    case Outcome::AlreadyApplied:
      std::cout << flags_.node << ": already applied " << changes << "\n";
      return 0;
    case Outcome::RolledBack:
      std::cout << flags_.node << ": rolled back " << changes << ": " << report->message << "\n";
      return kExitRolledBack;
  }
  return kExitRolledBack;
}

}  // namespace fed::reconfig
