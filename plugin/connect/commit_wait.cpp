#include "plugin/connect/commit_wait.hpp"

#include <optional>

#include "plugin/connect/poll.hpp"
#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/fedapi/state_commit.hpp"

namespace fed::plugin {

using nlohmann::json;

namespace {

// True when the host's managers elect a leader, i.e. replicate what they lead.
Result<bool> replicated(kube::DynamicClient& host) {
  auto leader = host.get(federation::configmap_ref(fedapi::kLeaderConfigMap));
  if (!leader && leader.error().is_not_found()) return false;
  if (!leader) return leader.error().to_error();
  return leader->value("data", json::object()).value("epoch", "0") != "0";
}

}  // namespace

Status wait_committed(const HostConnection& connection, const kube::ResourceRef& ref, Output& out,
                      std::chrono::milliseconds timeout) {
  kube::DynamicClient& host = *connection.client;
  const std::string& host_id = connection.cluster_id;
  bool elected = false;
  if (connection.replicated) {
    elected = *connection.replicated;
  } else {
    FED_ASSIGN_OR_RETURN(elected, replicated(host));
  }
  if (!elected) return ok();
  std::optional<std::string> version;  // nullopt: gone, or being deleted
  if (auto live = host.get(ref)) {
    const json& meta = (*live)["metadata"];
    if (!meta.contains("deletionTimestamp")) version = meta.value("resourceVersion", "");
  } else if (!live.error().is_not_found()) {
    return live.error().to_error();
  }
  const std::string entry = fedapi::committed_key(fedapi::state_kind(ref.gvr), ref.ns, ref.name);
  const auto record = federation::configmap_ref(fedapi::kStateCommittedConfigMap);
  return poll_until(
      [&]() -> PollResult {
        auto cm = host.get(record);
        if (!cm && !cm.error().is_not_found()) {
          return fail(cm.error().code(), cm.error().to_error().message());
        }
        const std::string recorded = cm ? cm->value("data", json::object()).value(entry, "") : "";
        if (fedapi::commit_covers(recorded, version)) return poll_done();
        return still_waiting("the leader on " + host_id + " has not committed it yet");
      },
      timeout, ref.to_string() + " to be committed to the federation etcd",
      "written on host " + host_id +
          " but not confirmed committed to the federation etcd (did the leader change? kubectl "
          "fed status shows it); run the command again",
      // The commit usually follows within tens of ms: every command waits this poll's period.
      out, std::chrono::milliseconds(50));
}

}  // namespace fed::plugin
