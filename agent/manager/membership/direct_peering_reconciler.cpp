#include "agent/manager/membership/direct_peering_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <mutex>

#include "agent/manager/membership/network_exchange.hpp"
#include "agent/manager/membership/peering_writer.hpp"
#include "agent/manager/membership/tunnel_pair.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/nat_mapping.hpp"
#include "shared/kube/object_edits.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

kube::ResourceRef object_ref(const json& object) {
  return fedapi::ref(fedapi::kDirectPeering, object["metadata"].value("name", ""));
}

// spec.clusters: exactly two distinct member ids (the schema says so too).
Result<std::pair<std::string, std::string>> pair_of(const json& object) {
  const json clusters = object.value("spec", json::object()).value("clusters", json::array());
  if (clusters.size() != 2 || !clusters[0].is_string() || !clusters[1].is_string() ||
      clusters[0] == clusters[1]) {
    return fail(ErrorCode::Invalid, "spec.clusters must name two different members");
  }
  return std::pair{clusters[0].get<std::string>(), clusters[1].get<std::string>()};
}

}  // namespace

DirectPeeringReconciler::DirectPeeringReconciler(std::shared_ptr<kube::DynamicClient> host,
                                                 kube::Informer& peerings,
                                                 MembershipReconciler& membership)
    : host_(std::move(host)), peerings_(peerings), membership_(membership) {}

Result<kube::Requeue> DirectPeeringReconciler::reconcile(const kube::Request& request) {
  auto object = peerings_.store().get("", request.name);
  if (!object) return kube::Requeue{};
  const json& dp = *object;
  FED_ASSIGN_OR_RETURN(auto pair, pair_of(dp));
  const bool finalized = kube::has_finalizer(dp, kDirectPeeringFinalizer);
  if (dp["metadata"].contains("deletionTimestamp")) {
    if (!finalized) return kube::Requeue{};
    FED_TRY(unlink(pair.first, pair.second));
    FED_TRY(kube::set_finalizer(*host_, object_ref(dp), dp, kDirectPeeringFinalizer, false));
    return kube::Requeue{};
  }
  if (!finalized) {
    FED_TRY(kube::set_finalizer(*host_, object_ref(dp), dp, kDirectPeeringFinalizer, true));
    return kube::Requeue{};
  }
  return link(dp, pair.first, pair.second);
}

Result<kube::Requeue> DirectPeeringReconciler::link(const json& dp, const std::string& a_id,
                                                    const std::string& b_id) {
  auto a = membership_.joined_member(a_id);
  auto b = a ? membership_.joined_member(b_id) : a;
  if (!a || !b) {
    const auto& e = a ? b.error() : a.error();
    FED_TRY(report(dp, false, "MemberNotReady", e.message(), json()));
    return kube::Requeue{5s};
  }
  auto& am = *a->member;
  auto& bm = *b->member;
  // Unencrypted only when both members chose it for their links with the host.
  const auto backend =
      a->backend == fedapi::TunnelBackend::Vxlan && b->backend == fedapi::TunnelBackend::Vxlan
          ? fedapi::TunnelBackend::Vxlan
          : fedapi::TunnelBackend::WireGuard;
  fedapi::TunnelStatus a_tunnel, b_tunnel;
  {
    fabric::ipam::ClusterState a_state, b_state;
    std::uint64_t a_change = 0, b_change = 0;
    {
      std::scoped_lock ipams(am.ipam->mutex(), bm.ipam->mutex());
      FED_TRY(exchange_networks({am.ipam->ipam(), a_id, am.ipam->local()},
                                {bm.ipam->ipam(), b_id, bm.ipam->local()}));
      FED_ASSIGN_OR_RETURN(a_state, am.ipam->ipam().cluster(b_id));
      FED_ASSIGN_OR_RETURN(b_state, bm.ipam->ipam().cluster(a_id));
      a_change = am.ipam->ticket();
      b_change = bm.ipam->ticket();
    }
    FED_TRY(am.ipam->save(a_change));
    FED_TRY(bm.ipam->save(b_change));
    FED_ASSIGN_OR_RETURN(auto a_gw, read_gateway_info(*am.client));
    FED_ASSIGN_OR_RETURN(auto b_gw, read_gateway_info(*bm.client));
    const PeeringSide a_side{a_id,   b_id, am.ipam->local(),  a_state,
                             a_gw,   b_gw, a->tunnel_address, b->tunnel_address,
                             backend};
    const PeeringSide b_side{b_id,   a_id, bm.ipam->local(),  b_state,
                             b_gw,   a_gw, b->tunnel_address, a->tunnel_address,
                             backend};
    FED_ASSIGN_OR_RETURN(a_tunnel, apply_peering(*am.client, a_side));
    FED_ASSIGN_OR_RETURN(b_tunnel, apply_peering(*bm.client, b_side));
  }
  const auto pair = pair_tunnel_status(a_id, a_tunnel, b_id, b_tunnel);
  const bool connected = pair.state == fedapi::TunnelState::Connected;
  json tunnel{{"state", std::string(fedapi::to_string(pair.state))},
              {"backend", std::string(fedapi::to_string(backend))}};
  FED_TRY(report(dp, connected, connected ? "Peered" : "TunnelPending",
                 connected ? a_id + " and " + b_id + " are peered directly" : pair.message,
                 tunnel));
  // The gateways report the handshake in the members' Peerings, which are not watched here.
  return kube::Requeue{connected ? 60s : 1s};
}

Status DirectPeeringReconciler::unlink(const std::string& a_id, const std::string& b_id) {
  for (const auto& [self, other] : {std::pair{a_id, b_id}, std::pair{b_id, a_id}}) {
    auto m = membership_.joined_member(self);
    if (!m) {
      // An unjoined member took its objects with it; the other side is still cleaned.
      spdlog::warn("unpeer {} {}: {} ({}); cleaning the other side only", a_id, b_id, self,
                   m.error().message());
      continue;
    }
    auto& member = *m->member;
    FED_TRY(kube::remove_if_present(*member.client, fedapi::ref(fedapi::kPeering, other)));
    FED_TRY(fedapi::remove_nat_mappings(*member.client, other));
    FED_TRY(member.ipam->remove_peer(other));
  }
  spdlog::info("members {} and {} are no longer peered directly", a_id, b_id);
  return ok();
}

Status DirectPeeringReconciler::report(const json& dp, bool ready, const std::string& reason,
                                       const std::string& message, const json& tunnel) {
  return kube::patch_ready_status(*host_, object_ref(dp), dp, {{"tunnel", tunnel}}, ready, reason,
                                  message);
}

}  // namespace fed::federation
