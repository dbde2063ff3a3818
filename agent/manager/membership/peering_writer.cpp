#include "agent/manager/membership/peering_writer.hpp"

#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::federation {

using nlohmann::json;

// Applies one side's Peering and its manager-owned status; returns the tunnel status (state and
// the hop-naming message) the gateway's agent reported in it.
Result<fedapi::TunnelStatus> apply_peering(kube::DynamicClient& c, const PeeringSide& side) {
  const auto ref = fedapi::ref(fedapi::kPeering, side.peer_id);
  auto applied =
      c.apply(ref, peering_object(side), kube::ApplyOptions{std::string(kFieldManager), true});
  if (!applied) {
    return fail(applied.error().code(), "Peering " + side.peer_id + " in " + side.local_id + ": " +
                                            applied.error().to_error().message());
  }
  fedapi::PeeringStatus status = peering_network_status(side);
  status.conditions = fedapi::read_conditions((*applied).value("status", json::object()));
  fedapi::set_condition(status.conditions,
                        {"NetworkReady", networks_complete(side) ? "True" : "False",
                         networks_complete(side) ? "Exchanged" : "Exchanging",
                         "networks exchanged with " + side.peer_id, "",
                         (*applied)["metadata"].value("generation", std::int64_t{0})},
                        util::format_rfc3339(std::chrono::system_clock::now()));
  status.observed_generation = (*applied)["metadata"].value("generation", std::int64_t{0});
  json body = status;
  body.erase("tunnel");  // the gateway's agent owns it
  auto patched = c.patch_status(ref, kube::PatchType::Merge, json{{"status", body}}.dump());
  if (!patched) {
    return fail(patched.error().code(), "Peering " + side.peer_id + " status in " + side.local_id +
                                            ": " + patched.error().to_error().message());
  }
  return fedapi::current_tunnel_status(*patched);
}

}  // namespace fed::federation
