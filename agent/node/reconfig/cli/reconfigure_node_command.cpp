#include "agent/node/reconfig/cli/reconfigure_node_command.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>

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

// Where the file to rewrite is: explicit flags, else the distribution's row, else detection.
Status resolve_target(const ReconfigureNodeFlags& flags, ReconfigureRequest& req,
                      std::string& service) {
  const KubeletLayout* layout = nullptr;
  if (!flags.distribution.empty()) {
    FED_ASSIGN_OR_RETURN(layout, find_layout(flags.distribution));
  } else if (flags.kubelet_config.empty() && flags.kubelet_config_dir.empty()) {
    FED_ASSIGN_OR_RETURN(layout, detect_layout([](std::string_view p) {
                           std::error_code ec;
                           return std::filesystem::exists(p, ec);
                         }));
  }
  if (!flags.kubelet_config.empty()) {
    req.config_file = flags.kubelet_config;
  } else if (!flags.kubelet_config_dir.empty()) {
    req.config_file = std::filesystem::path(flags.kubelet_config_dir) / kDropInFile;
    req.drop_in = true;
  } else {
    std::error_code ec;
    // A drop-in directory the node already has wins: the vendor's own file stays untouched.
    const bool has_dir =
        !layout->config_dir.empty() && std::filesystem::is_directory(layout->config_dir, ec);
    req.drop_in = has_dir || layout->config_file.empty();
    req.config_file = req.drop_in ? std::filesystem::path(layout->config_dir) / kDropInFile
                                  : std::filesystem::path(layout->config_file);
  }
  req.root_dir = !flags.root_dir.empty() ? std::filesystem::path(flags.root_dir)
                 : layout != nullptr     ? std::filesystem::path(layout->root_dir)
                                         : std::filesystem::path("/var/lib/kubelet");
  service = !flags.service.empty() ? flags.service
            : layout != nullptr    ? std::string(layout->service)
                                   : "kubelet";
  return ok();
}

Result<ReconfigureRequest> build_request(const ReconfigureNodeFlags& flags) {
  ReconfigureRequest req;
  FED_ASSIGN_OR_RETURN(req.changes, parse_set_args(flags.set));
  FED_TRY(resolve_target(flags, req, req.restart.service));
  std::string method = flags.restart_method;
  if (method.empty()) {
    method = !flags.restart_command.empty() ? "command"
             : flags.distribution == "k3s"  ? "k3s"
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
                   "the kubelet's --config file (default: from --distribution or detected)");
  app_->add_option("--kubelet-config-dir", flags_.kubelet_config_dir,
                   "the kubelet's --config-dir: write a drop-in there instead");
  app_->add_option("--distribution", flags_.distribution,
                   "kubeadm, k3s, eks, eks-al2023, aks or gke: use the shipped paths");
  app_->add_option(
      "--kubelet-root-dir", flags_.root_dir,
      "the kubelet's --root-dir, where its checkpoints are (default /var/lib/kubelet)");
  app_->add_option("--restart-method", flags_.restart_method,
                   "systemd (nsenter into PID 1), k3s, or command");
  app_->add_option("--restart-command", flags_.restart_command,
                   "command that restarts the kubelet, words separated by spaces (no shell)");
  app_->add_option("--kubelet-service", flags_.service, "systemd unit of the kubelet");
  app_->add_option("--timeout", flags_.timeout, "health gate limit after each restart")
      ->capture_default_str();
}

int ReconfigureNodeCommand::run(const agent::AgentOptions& common) {
  log::init({common.log_format, agent::log_verbosity(common.verbosity)});
  auto req = build_request(flags_);
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
