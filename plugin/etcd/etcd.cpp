#include "plugin/etcd/etcd.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "plugin/etcd/etcd_status_client.hpp"
#include "plugin/etcd/etcd_status_view.hpp"
#include "shared/etcd/proxy_status.hpp"

namespace fed::plugin {
namespace {

// Reading a local socket should take milliseconds; a proxy stuck longer than this is reported
// rather than waited for (--request-timeout overrides it).
constexpr std::chrono::milliseconds kDefaultTimeout{5000};

Runner wire_etcd(CLI::App& app) {
  auto o = std::make_shared<EtcdOptions>();
  o->socket = std::string(etcd::kDefaultProxyStatusSocket);
  app.add_option("action", o->action, "status: show the etcd proxy's view of etcd");
  app.add_option("--socket", o->socket,
                 "The etcd proxy's status socket (its --status-socket; default " + o->socket + ")");
  return [o](const GlobalOptions& global, Output& out) -> Status {
    if (o->action != "status") {
      return Error(ErrorCode::Invalid,
                   o->action.empty()
                       ? "kubectl fed etcd needs a subcommand: kubectl fed etcd status"
                       : "unknown argument \"" + o->action + "\": expected \"status\"");
    }
    return run_etcd_status(global, *o, out);
  };
}

}  // namespace

const Command kEtcdCommand{
    .name = "etcd",
    .summary = "Show the etcd proxy's members, leader, policy and classifier on this node",
    .description =
        "`etcd status` reads the status of the node-local etcd proxy (fed-agent etcd-proxy) "
        "from its unix socket: every member's endpoint, id, health, raft term and status round "
        "trip, the leader and the raft term, the routing policy (round-robin, leader or "
        "leader+classifier), the classifier's last class and decision, the last leader move, "
        "and per member the connections forwarded and why each member was picked "
        "(leader/round-robin/fallback). The socket is root's (mode 0600) and the proxy checks "
        "the caller's uid, so run it as root on the node where the proxy runs. No cluster is "
        "contacted; --context and --kubeconfig are ignored.",
    .usage = "etcd status [--socket PATH] [-o table|json|yaml] [flags]",
    .examples =
        "  # The proxy beside this node's kube-apiserver\n"
        "  sudo kubectl fed etcd status\n"
        "\n"
        "  # Its leader, for a script\n"
        "  sudo kubectl fed etcd status -o json | jq -r .leader\n"
        "\n"
        "  # A proxy started with --status-socket /run/etcd-proxy-2.sock\n"
        "  sudo kubectl fed etcd status --socket /run/etcd-proxy-2.sock\n",
    .arg_values = {"status"},
    .wire = wire_etcd,
};

Status run_etcd_status(const GlobalOptions& global, const EtcdOptions& options, Output& out) {
  const auto timeout =
      global.request_timeout.count() > 0 ? global.request_timeout : kDefaultTimeout;
  FED_ASSIGN_OR_RETURN(const std::string answer, read_status_socket(options.socket, timeout));
  FED_ASSIGN_OR_RETURN(const etcd::ProxyStatus status, parse_status_answer(options.socket, answer));
  out.print(etcd::to_json(status), [&](std::ostream& os) {
    os << render_etcd_status(status, std::chrono::system_clock::now());
  });
  return ok();
}

}  // namespace fed::plugin
