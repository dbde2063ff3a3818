#include "plugin/host/leader_handover.hpp"

#include "plugin/connect/poll.hpp"
#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/names.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

kube::ResourceRef manager_deployment() {
  return kube::ResourceRef{
      {"apps", "v1", "deployments"}, std::string(fedapi::kNamespace), "fed-manager", ""};
}

Status scale(kube::DynamicClient& client, std::int64_t replicas) {
  const json patch{{"spec", {{"replicas", replicas}}}};
  auto r = client.patch(manager_deployment(), kube::PatchType::Merge, patch.dump());
  if (!r) return r.error().to_error();
  return ok();
}

// fed-leader's data as `client`'s host has it; empty when it cannot be read.
json leader_data(kube::DynamicClient& client) {
  auto cm = client.get(federation::configmap_ref(fedapi::kLeaderConfigMap));
  return cm ? cm->value("data", json::object()) : json::object();
}

}  // namespace

Result<ReachedHost> hand_leadership_over(const GlobalOptions& global, const HostConnection& leaving,
                                         const std::vector<std::string>& others,
                                         std::chrono::milliseconds timeout, Output& out) {
  std::optional<ReachedHost> witness;  // another host, to see the new leader from
  for (const auto& host : others) {
    if (auto reached = connect_host_named(global, host)) {
      witness = std::move(*reached);
      break;
    }
  }
  if (!witness) {
    std::string names;
    for (const auto& h : others) names += (names.empty() ? "" : ", ") + h;
    return fail(
        ErrorCode::NotFound,
        "removing " + leaving.cluster_id +
            ", which runs the federation's leader, hands "
            "the leadership to another host first, and no context of the kubeconfig reaches "
            "one of " +
            names + ": add one (kubectl config set-context)");
  }
  FED_ASSIGN_OR_RETURN(auto deployment, leaving.client->get(manager_deployment()));
  const auto replicas = deployment["spec"].value("replicas", std::int64_t{1});
  const std::string epoch_before = leader_data(*leaving.client).value("epoch", "0");

  out.progress("Handing the federation's leadership over from " + leaving.cluster_id +
               " (its managers scaled to 0)...");
  FED_TRY(scale(*leaving.client, 0));
  std::string new_host;
  auto moved = poll_until(
      [&]() -> PollResult {
        const json data = leader_data(*witness->host.client);
        const std::string host = data.value("host", "");
        if (data.value("holder", "None") == "None" || host.empty()) {
          return still_waiting("no leader yet");
        }
        if (host == leaving.cluster_id || data.value("epoch", "0") == epoch_before) {
          return still_waiting("the leader is still on " + host);
        }
        new_host = host;
        return poll_done();
      },
      timeout, "another host's manager to lead",
      "no manager of another host took the leadership over", out);
  if (!moved) {
    (void)scale(*leaving.client, replicas);  // best effort: the host leads again
    return moved.error();
  }
  out.err() << "the federation's leadership moved from " << leaving.cluster_id << " to " << new_host
            << "\n";
  if (new_host == witness->host.cluster_id) return std::move(*witness);
  return connect_host_named(global, new_host);
}

}  // namespace fed::plugin
