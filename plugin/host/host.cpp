#include "plugin/host/host.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "plugin/connect/host_connection.hpp"
#include "plugin/host/host_checks.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/names.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

Runner wire_host(CLI::App& app) {
  auto o = std::make_shared<HostOptions>();
  auto timeout = std::make_shared<std::string>("3m");
  auto dry_run = std::make_shared<std::string>("none");
  app.add_option("action", o->action, "add, remove or list");
  app.add_option("name", o->name, "add, remove: the host's cluster id, a DNS label");
  app.add_option("--host-context", o->host_flags.context,
                 "add: the new host's context in the kubeconfig; remove: the removed host's, "
                 "to delete kubectl-fed from it too");
  app.add_option("--host-kubeconfig", o->host_flags.kubeconfig,
                 "add, remove: a kubeconfig file for that host");
  app.add_option(
      "--gateway-node", o->gateway_node,
      "add: the new host's gateway node, where its etcd member runs (default: the "
      "labelled one, else the first Ready node by name with an ExternalIP, else by name)");
  app.add_option("--gateway-address", o->gateway_address,
                 "add: the IPv4 address the other hosts reach its gateway at (default: the "
                 "node's ExternalIP, else its InternalIP)");
  app.add_option("--image", o->image, "add: the fed-agent image of its managers and agents");
  app.add_option("--etcd-image", o->etcd_image, "add: the image of its federation etcd member");
  app.add_flag("--webhook-caller-auth", o->webhook_caller_auth,
               "add: " + std::string(kWebhookCallerAuthHelp));
  app.add_option("--timeout", *timeout,
                 "add: how long the new member may take to join and be promoted (default 3m)");
  app.add_option("--dry-run", *dry_run,
                 "add: client prints the new host's objects, writes nothing");
  return [o, timeout, dry_run](const GlobalOptions& global, Output& out) -> Status {
    FED_ASSIGN_OR_RETURN(o->timeout, parse_timeout_flag(*timeout, "--timeout"));
    FED_ASSIGN_OR_RETURN(o->dry_run, parse_dry_run(*dry_run));
    return run_host(global, *o, out);
  };
}

Status run_host_list(const GlobalOptions& global, Output& out) {
  FED_ASSIGN_OR_RETURN(auto host, connect_host(global));
  FED_ASSIGN_OR_RETURN(auto hosts, host.client->list_all(fedapi::ref(fedapi::kFederationHost, "")));
  json leader_data = json::object();
  if (auto cm = host.client->get(kube::ResourceRef{{"", "v1", "configmaps"},
                                                   std::string(fedapi::kNamespace),
                                                   std::string(fedapi::kLeaderConfigMap),
                                                   ""})) {
    leader_data = cm->value("data", json::object());
  }
  out.print(hosts,
            [&](std::ostream& os) { os << render_table(host_list_table(hosts, leader_data)); });
  return ok();
}

}  // namespace

Status validate_host_flags(const HostOptions& o) {
  if (o.action == "list") {
    if (!o.name.empty()) {
      return fail(ErrorCode::Invalid, "host list takes no NAME (it lists every host)");
    }
    return ok();
  }
  if (o.action != "add" && o.action != "remove") {
    return fail(ErrorCode::Invalid, "unknown host action \"" + o.action +
                                        "\": use kubectl fed host add NAME --host-context CTX, "
                                        "host remove NAME, or host list");
  }
  if (o.name.empty()) {
    return fail(ErrorCode::Invalid,
                o.action == "add"
                    ? "host add needs the new host's NAME: kubectl fed host add NAME --context "
                      "FIRST --host-context NAME"
                    : "host remove needs the host's NAME: kubectl fed host remove NAME --context "
                      "LEADER [--host-context NAME]");
  }
  FED_TRY(validate_cluster_id(o.name, "NAME"));
  FED_TRY(validate_gateway_address(o.gateway_address));
  if (o.image.empty() || o.etcd_image.empty()) {
    return fail(ErrorCode::Invalid, "--image and --etcd-image must not be empty");
  }
  return ok();
}

Status run_host(const GlobalOptions& global, const HostOptions& options, Output& out) {
  FED_TRY(validate_host_flags(options));
  if (options.action == "list") return run_host_list(global, out);
  if (options.action == "remove") return run_host_remove(global, options, out);
  return run_host_add(global, options, out);
}

Table host_list_table(const json& hosts, const json& leader_data) {
  Table t;
  t.headers = {"NAME", "ROLE", "ETCD", "MEMBER ID", "PEER URL", "READY"};
  const std::string leader_host = leader_data.value("host", "");
  for (const auto& h : hosts.value("items", json::array())) {
    const std::string name = h["metadata"].value("name", "");
    const json status = h.value("status", json::object());
    std::string role = "follower";
    if (leader_host.empty() || leader_data.value("holder", "None") == "None") role = "-";
    if (name == leader_host) role = "leader";
    t.rows.push_back({name, role, status.value("phase", "Adding"), status.value("memberID", "-"),
                      h.value("spec", json::object()).value("etcdPeerURL", ""), ready_status(h)});
  }
  return t;
}

const Command kHostCommand{
    .name = "host",
    .summary = "Add, remove or list the federation's host clusters (high availability)",
    .description =
        "The federation's host clusters, where users work and the managers run: kubectl fed "
        "init makes the first. host add installs another: its federation etcd member on its "
        "gateway node joins the federation's etcd cluster (added by the leading manager as a "
        "learner, promoted once it has caught up), and its two manager replicas stand by to "
        "take over. Use 3, 5 or 7 hosts: a majority of them must be up for any manager to "
        "lead. host remove takes a host's member out of the federation etcd (refused for the "
        "last host, the leader's host, or when the others would lack a quorum) and, with "
        "--host-context, deletes kubectl-fed from it. host list shows each host's etcd "
        "membership and which one leads.",
    .usage =
        "host add NAME --host-context CTX [--gateway-node NODE] [--gateway-address IP] "
        "[--timeout 3m] [--dry-run=client] | host remove NAME [--host-context CTX] | host "
        "list [flags]",
    .examples =
        "  # Make cluster c2 a second host of the federation whose host is c1\n"
        "  kubectl fed host add c2 --context c1 --host-context c2\n"
        "\n"
        "  # Take c3 out of the federation and delete kubectl-fed from it\n"
        "  kubectl fed host remove c3 --context c1 --host-context c3\n"
        "\n"
        "  # The hosts, their etcd members and the leader\n"
        "  kubectl fed host list --context c1\n",
    .arg_values = {"add", "list", "remove"},
    .wire = wire_host,
};

}  // namespace fed::plugin
