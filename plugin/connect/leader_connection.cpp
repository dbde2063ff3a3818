#include "plugin/connect/leader_connection.hpp"

#include <charconv>
#include <optional>

#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/kube/kubeconfig.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

// A context that does not answer within this is not the leader's (it is looked for only when
// --context is a follower, so a dead context costs that much once).
constexpr std::chrono::seconds kLeaderProbeTimeout{5};

// The kubeconfig's contexts to try for host `leader`: the one named like it first.
Result<std::vector<std::string>> candidate_contexts(const GlobalOptions& global,
                                                    const std::string& leader) {
  kube::LoadOptions load;
  load.kubeconfig_path = global.kubeconfig;
  FED_ASSIGN_OR_RETURN(auto kubeconfig, kube::load_kubeconfig(load));
  std::vector<std::string> names;
  if (kubeconfig.contexts.contains(leader)) names.push_back(leader);
  for (const auto& name : kubeconfig.context_names()) {
    if (name != leader && name != global.context) names.push_back(name);
  }
  return names;
}

struct NamedLeader {
  std::string host;
  std::uint64_t epoch = 0;
};

// The elected leader a host's fed-leader names; nullopt when it names none (no fed-leader, one
// manager without election, nobody leading) or cannot be read.
std::optional<NamedLeader> leader_named_by(kube::DynamicClient& client) {
  auto cm = client.get(federation::configmap_ref(fedapi::kLeaderConfigMap));
  if (!cm) return std::nullopt;
  const json data = cm->value("data", json::object());
  const std::string host = data.value("host", ""), epoch = data.value("epoch", "");
  if (data.value("role", "").empty() || host.empty() || data.value("holder", "None") == "None") {
    return std::nullopt;
  }
  NamedLeader named{host};
  const auto parsed = std::from_chars(epoch.data(), epoch.data() + epoch.size(), named.epoch);
  if (parsed.ec != std::errc() || parsed.ptr != epoch.data() + epoch.size()) return std::nullopt;
  return named;
}

}  // namespace

Result<LeaderSeen> leader_host_seen_from(kube::DynamicClient& client, const std::string& here) {
  auto cm = client.get(federation::configmap_ref(fedapi::kLeaderConfigMap));
  if (!cm && cm.error().is_not_found()) return LeaderSeen{here, false};
  if (!cm) return cm.error().to_error();
  const json data = cm->value("data", json::object());
  const bool replicated = data.value("epoch", "0") != "0";
  const std::string role = data.value("role", "");
  if (role.empty() || role == "leader") return LeaderSeen{here, replicated};
  const std::string host = data.value("host", "");
  if (host.empty() || data.value("holder", "None") == "None") {
    return fail(ErrorCode::Unavailable,
                "the federation has no leader (no quorum of host clusters): its writes wait until "
                "one is elected; kubectl fed status --context " +
                    here + " shows the hosts");
  }
  return LeaderSeen{host, replicated};
}

Result<ReachedHost> connect_host_named(const GlobalOptions& global, const std::string& host) {
  FED_ASSIGN_OR_RETURN(auto contexts, candidate_contexts(global, host));
  for (const auto& context : contexts) {
    GlobalOptions other = global;
    other.context = context;
    if (other.request_timeout.count() == 0 || other.request_timeout > kLeaderProbeTimeout) {
      other.request_timeout = kLeaderProbeTimeout;
    }
    auto there = connect_host(other);
    if (there && there->cluster_id == host) return ReachedHost{std::move(*there), context};
  }
  return fail(ErrorCode::NotFound, "no context of the kubeconfig reaches host " + host +
                                       ": add one (kubectl config set-context) and pass "
                                       "--context <it>");
}

Result<HostConnection> connect_leader_host(const GlobalOptions& global, std::ostream& notes) {
  FED_ASSIGN_OR_RETURN(auto here, connect_host(global));
  FED_ASSIGN_OR_RETURN(auto seen, leader_host_seen_from(*here.client, here.cluster_id));
  const std::string& leader = seen.host;
  if (leader == here.cluster_id) {
    here.replicated = seen.replicated;
    return here;
  }
  auto there = connect_host_named(global, leader);
  if (!there) {
    return fail(ErrorCode::NotFound,
                "host " + here.cluster_id + " follows the federation's leader on host " + leader +
                    ", and no context of the kubeconfig reaches " + leader + ": add one (kubectl " +
                    "config set-context) and pass --context <it>");
  }
  notes << "host " << here.cluster_id << " follows the federation's leader on host " << leader
        << ": sending this to it (context " << there->context << ")\n";
  there->host.replicated = seen.replicated;
  return std::move(there->host);
}

Result<HostConnection> connect_leading_host(const GlobalOptions& global) {
  FED_ASSIGN_OR_RETURN(auto here, connect_host(global));
  FED_ASSIGN_OR_RETURN(auto seen, leader_host_seen_from(*here.client, here.cluster_id));
  const std::string& leader = seen.host;
  if (leader == here.cluster_id) {
    here.replicated = seen.replicated;
    return here;
  }
  return fail(ErrorCode::Invalid,
              "host " + here.cluster_id + " follows the federation's leader on host " + leader +
                  ": the namespaces of a host are served only while it leads; run this on " +
                  leader + " (--context <a context for " + leader + ">)");
}

Status check_still_leading(const HostConnection& host) {
  if (!host.replicated.value_or(false)) return ok();
  auto seen = leader_host_seen_from(*host.client, host.cluster_id);
  if (!seen || seen->host == host.cluster_id) return ok();
  return fail(ErrorCode::Unavailable, "host " + host.cluster_id +
                                          " stopped leading the federation (its leader is now on "
                                          "host " +
                                          seen->host +
                                          "): the namespaces of a host are served only while it "
                                          "leads; run this on " +
                                          seen->host + " (--context <a context for " + seen->host +
                                          ">)");
}

Status follow_leader(const GlobalOptions& global, HostConnection& host, std::ostream& notes,
                     std::span<kube::DynamicClient* const> witnesses) {
  auto newest = leader_named_by(*host.client);
  for (kube::DynamicClient* witness : witnesses) {
    auto seen = leader_named_by(*witness);
    if (seen && (!newest || seen->epoch > newest->epoch)) newest = std::move(seen);
  }
  if (!newest || newest->host == host.cluster_id) return ok();
  FED_ASSIGN_OR_RETURN(auto there, connect_host_named(global, newest->host));
  notes << "the federation's leader moved from host " << host.cluster_id << " to host "
        << newest->host << " (epoch " << newest->epoch << "): following it (context "
        << there.context << ")\n";
  there.host.replicated = true;
  host = std::move(there.host);
  return ok();
}

}  // namespace fed::plugin
