#include "plugin/membership/peer.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "plugin/connect/commit_wait.hpp"
#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/poll.hpp"
#include "plugin/manifests/render.hpp"
#include "plugin/membership/membership_validation.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/util/duration.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

Runner wire_peer(CLI::App& app) {
  auto o = std::make_shared<PeerOptions>();
  auto timeout = std::make_shared<std::string>("3m");
  app.add_option("a", o->a, "One member");
  app.add_option("b", o->b, "The other member");
  app.add_flag("--remove", o->remove, "Remove the direct link instead");
  app.add_flag("--wait", o->wait, "Wait until the link is Ready (with --remove: gone)");
  app.add_option("--timeout", *timeout, "How long --wait may take (default 3m)");
  return [o, timeout](const GlobalOptions& global, Output& out) -> Status {
    FED_ASSIGN_OR_RETURN(o->timeout, parse_timeout_flag(*timeout, "--timeout"));
    return run_peer(global, *o, out);
  };
}

json direct_peering(const std::string& name, const std::string& a, const std::string& b) {
  return json{
      {"apiVersion", std::string(fedapi::kApiVersion)},
      {"kind", std::string(fedapi::kDirectPeering.kind)},
      {"metadata",
       {{"name", name}, {"labels", {{std::string(kPartOfLabel), std::string(kPartOfValue)}}}}},
      {"spec", {{"clusters", json::array({a, b})}}}};
}

std::string ready_reason(const json& dp) {
  for (const auto& c : dp.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") != "Ready") continue;
    if (c.value("status", "") == "True") return "";
    return c.value("reason", "") + ": " + c.value("message", "");
  }
  return "the manager has not reported on it yet: is it running?";
}

// --wait: until the DirectPeering is Ready, or (gone) deleted.
Status wait_for(kube::DynamicClient& host, const kube::ResourceRef& ref, bool gone,
                std::chrono::milliseconds timeout, const std::string& what, Output& out) {
  return poll_until(
      [&]() -> PollResult {
        auto dp = host.get(ref);
        if (!dp && !dp.error().is_not_found()) {
          return fail(dp.error().code(), dp.error().to_error().message());
        }
        if (gone) {
          if (!dp) return poll_done();
          return still_waiting("the manager is still tearing it down");
        }
        if (!dp) return still_waiting("the DirectPeering is not there");
        std::string reason = ready_reason(*dp);
        if (reason.empty()) return poll_done();
        return still_waiting(reason);
      },
      timeout, what, what + " not " + (gone ? "gone" : "Ready"), out);
}

}  // namespace

const Command kPeerCommand{
    .name = "peer",
    .summary = "Link two members directly (mesh), beside their links to the host",
    .description =
        "Peers two joined members directly: the manager exchanges their networks (remapping what "
        "collides) and writes a Peering on each for the other, so their gateways open a tunnel "
        "and their pods reach each other without going through the host. Peering again changes "
        "nothing; --remove takes the link down.",
    .usage = "peer A B [--remove] [--wait] [--timeout D] [flags]",
    .examples =
        "  # Link members c2 and c3 directly and wait for the tunnel\n"
        "  kubectl fed peer c2 c3 --context c1 --wait\n"
        "\n"
        "  # Remove the link\n"
        "  kubectl fed peer c2 c3 --context c1 --remove\n",
    .arg_values = {},
    .wire = wire_peer,
};

Status validate_peer_args(const PeerOptions& o) {
  if (o.a.empty() || o.b.empty()) {
    return fail(ErrorCode::Invalid, "peer needs two members, e.g. kubectl fed peer c2 c3");
  }
  FED_TRY(validate_cluster_id(o.a, "A"));
  FED_TRY(validate_cluster_id(o.b, "B"));
  if (o.a == o.b) {
    return fail(ErrorCode::Invalid, "A and B are both " + o.a + ": name two different members");
  }
  return ok();
}

std::string direct_peering_name(const std::string& a, const std::string& b) {
  return a < b ? a + "." + b : b + "." + a;
}

Status run_peer(const GlobalOptions& global, const PeerOptions& o, Output& out) {
  FED_TRY(validate_peer_args(o));
  FED_ASSIGN_OR_RETURN(auto connection, connect_leader_host(global, out.err()));
  auto& host = connection.client;
  const std::string a = std::min(o.a, o.b), b = std::max(o.a, o.b);
  const std::string name = direct_peering_name(a, b);
  const auto ref = fedapi::ref(fedapi::kDirectPeering, name);
  auto live = host->get(ref);
  if (!live && !live.error().is_not_found()) {
    return fail(live.error().code(), live.error().to_error().message());
  }
  std::string result;
  if (o.remove) {
    result = live ? "removed" : "notPeered";
    if (live) {
      auto r = host->remove(ref);
      if (!r && !r.error().is_not_found()) return r.error().to_error();
      FED_TRY(wait_committed(connection, ref, out));
      if (o.wait) FED_TRY(wait_for(*host, ref, true, o.timeout, "link " + name, out));
    }
  } else {
    for (const auto& m : {a, b}) {
      auto fc = host->get(fedapi::ref(fedapi::kFederatedCluster, m));
      if (!fc && fc.error().is_not_found()) {
        return fail(ErrorCode::NotFound, "member " + m + " is not joined to federation " +
                                             connection.cluster_id + ": kubectl fed join " + m +
                                             " first");
      }
      if (!fc) return fail(fc.error().code(), fc.error().to_error().message());
    }
    result = live ? "alreadyPeered" : "peered";
    if (!live) {
      auto made = host->create(ref.named(""), direct_peering(name, a, b));
      if (!made) return made.error().to_error();
      FED_TRY(wait_committed(connection, ref, out));
    }
    if (o.wait) FED_TRY(wait_for(*host, ref, false, o.timeout, "link " + name, out));
  }
  json doc{{"result", result}, {"name", name}, {"clusters", json::array({a, b})}};
  if (o.wait && !o.remove) doc["ready"] = true;
  out.print(doc, [&](std::ostream& os) {
    if (result == "peered") os << "members " << a << " and " << b << " peered directly\n";
    if (result == "alreadyPeered") os << "members " << a << " and " << b << " already peered\n";
    if (result == "removed") os << "direct link " << name << " removed\n";
    if (result == "notPeered") os << "members " << a << " and " << b << " were not peered\n";
    if (o.wait && !o.remove) os << "link " << name << " is Ready\n";
  });
  return ok();
}

}  // namespace fed::plugin
