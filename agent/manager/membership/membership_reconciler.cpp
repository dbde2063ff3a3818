#include "agent/manager/membership/membership_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "agent/manager/membership/former_hosts.hpp"
#include "agent/manager/membership/network_exchange.hpp"
#include "agent/manager/membership/peering_builder.hpp"
#include "agent/manager/membership/peering_writer.hpp"
#include "agent/manager/membership/tunnel_addresses.hpp"
#include "agent/manager/membership/tunnel_pair.hpp"
#include "shared/fedapi/federated_cluster.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/nat_mapping.hpp"
#include "shared/kube/object_edits.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::string cluster_id_of(const json& fc) {
  const std::string id = fc["spec"].value("clusterID", "");
  return id.empty() ? fc["metadata"].value("name", "") : id;
}

// The member's spec.tunnelBackend (absent: wireguard): the backend of both its Peerings.
Result<fedapi::TunnelBackend> tunnel_backend(const json& fc) {
  FED_ASSIGN_OR_RETURN(auto spec, fedapi::decode<fedapi::FederatedClusterSpec>(
                                      fc.value("spec", json::object()),
                                      "FederatedCluster " + cluster_id_of(fc) + " spec"));
  return spec.tunnel_backend;
}

// How long ago FederatedCluster `fc` was made (zero when unknown): the member's age.
PendingRecheck::Clock::duration age_of(const json& fc) {
  auto created = util::parse_rfc3339(fc["metadata"].value("creationTimestamp", ""));
  if (!created) return PendingRecheck::Clock::duration::zero();
  return std::chrono::duration_cast<PendingRecheck::Clock::duration>(
      std::chrono::system_clock::now() - *created);
}

}  // namespace

MembershipReconciler::MembershipReconciler(HostCluster host, kube::Informer& clusters,
                                           const kube::Informer* credentials,
                                           const kube::Informer* hosts)
    : host_(std::move(host)),
      clusters_(clusters),
      hosts_(hosts),
      connections_(host_.client, credentials),
      recheck_(/*fast=*/30s, /*max=*/30s, /*connected=*/60s) {}

std::vector<kube::Request> MembershipReconciler::cluster_of_peering(const json& peering) const {
  const std::string peer = peering["metadata"].value("name", "");
  for (const auto& fc : clusters_.store().list()) {
    if (cluster_id_of(*fc) == peer) return {{"", (*fc)["metadata"].value("name", "")}};
  }
  return {};
}

Result<kube::Requeue> MembershipReconciler::reconcile(const kube::Request& request) {
  auto object = clusters_.store().get("", request.name);
  if (!object) return kube::Requeue{};
  const json& fc = *object;
  const bool finalized = kube::has_finalizer(fc, kFinalizer);
  if (fc["metadata"].contains("deletionTimestamp")) {
    if (!finalized) return kube::Requeue{};
    FED_TRY(leave(fc));
    FED_TRY(set_finalizer(fc, false));
    return kube::Requeue{};
  }
  if (!finalized) {
    // The finalizer goes on before any state exists, so no unjoin can skip the teardown.
    FED_TRY(set_finalizer(fc, true));
    return kube::Requeue{};  // the update comes back through the informer
  }
  return join(fc);
}

Result<MembershipReconciler::JoinedMember> MembershipReconciler::joined_member(
    const std::string& id) {
  auto fc = clusters_.store().get("", id);
  if (!fc) return fail(ErrorCode::NotFound, "no FederatedCluster " + id + ": join it first");
  const std::string address = tunnel_address_of(*fc);
  if (address.empty() || (*fc)["metadata"].contains("deletionTimestamp")) {
    return fail(ErrorCode::Unavailable, "member " + id + " is not peered with the host yet");
  }
  FED_ASSIGN_OR_RETURN(auto m, member(*fc));
  FED_ASSIGN_OR_RETURN(auto backend, tunnel_backend(*fc));
  return JoinedMember{std::move(m), address, backend};
}

Result<std::shared_ptr<MembershipReconciler::Member>> MembershipReconciler::member(const json& fc) {
  const std::string id = cluster_id_of(fc);
  FED_ASSIGN_OR_RETURN(auto client, connections_.client_for(fc));
  std::lock_guard lock(mu_);
  auto& slot = members_[id];
  if (slot && slot->client == client) return slot;
  FED_ASSIGN_OR_RETURN(auto info, read_cluster_info(*client));
  if (info.role != ClusterRole::Member || info.cluster_id != id) {
    return fail(ErrorCode::Invalid, "the cluster behind FederatedCluster " + id + " says it is " +
                                        info.cluster_id + " (" +
                                        (info.role == ClusterRole::Host ? "a host" : "a member") +
                                        "); join it again");
  }
  if (id == host_.info.cluster_id) {
    return fail(ErrorCode::Invalid,
                "member " + id + " has the host's cluster id; join it with another name");
  }
  if (info.federation_id != host_.info.federation()) {
    return fail(ErrorCode::Conflict, "member " + id + " belongs to federation " +
                                         info.federation_id + ", not " + host_.info.federation() +
                                         "; unjoin it there first");
  }
  FED_ASSIGN_OR_RETURN(auto ipam, ClusterIpam::open(client, info));
  slot = std::make_shared<Member>(Member{client, std::move(info), std::move(ipam)});
  return slot;
}

Result<std::string> MembershipReconciler::tunnel_address(const json& fc) {
  std::string mine = tunnel_address_of(fc);
  if (!mine.empty()) return mine;
  std::set<std::string> used;
  for (const auto& other : clusters_.store().list()) used.insert(tunnel_address_of(*other));
  const auto candidate = next_member_tunnel_address(used);
  if (!candidate) {
    return fail(ErrorCode::Unavailable, "no free member tunnel address left in 169.254.64.0/18");
  }
  // Conditional on the resourceVersion: two workers never hand out one address twice.
  json patch{{"metadata",
              {{"resourceVersion", fc["metadata"].value("resourceVersion", "")},
               {"annotations", {{std::string(kTunnelAddressAnnotation), *candidate}}}}}};
  auto r = host_.client->patch(fedapi::ref(fedapi::kFederatedCluster, fc["metadata"]["name"]),
                               kube::PatchType::Merge, patch.dump());
  if (!r) return r.error().to_error();
  return *candidate;
}

Result<std::string> MembershipReconciler::host_tunnel_address() const {
  if (host_.tunnel_address) return host_.tunnel_address();
  return std::string(kFirstHostTunnelAddress);
}

Status MembershipReconciler::set_finalizer(const json& fc, bool present) {
  return kube::set_finalizer(
      *host_.client, fedapi::ref(fedapi::kFederatedCluster, fc["metadata"].value("name", "")), fc,
      kFinalizer, present);
}

Result<kube::Requeue> MembershipReconciler::join(const json& fc) {
  const std::string id = cluster_id_of(fc);
  const std::string& host_id = host_.info.cluster_id;
  auto m = member(fc);
  if (!m) {
    const auto& e = m.error();
    const std::string reason = e.code() == ErrorCode::Unavailable  ? "MemberUnreachable"
                               : e.code() == ErrorCode::Conflict   ? "ForeignFederation"
                               : e.code() == ErrorCode::Permission ? "MemberForbidden"
                                                                   : "MemberInvalid";
    FED_TRY(report(fc, reason, e.message(), json(), json(), false, false));
    return kube::Requeue{30s};
  }
  Member& mem = **m;
  ClusterIpam& hi = *host_.ipam;
  ClusterIpam& mi = *mem.ipam;
  ExchangeResult exchanged;
  fabric::ipam::ClusterState host_state, member_state;
  std::uint64_t host_change = 0, member_change = 0;
  {
    std::scoped_lock ipams(hi.mutex(), mi.mutex());
    FED_ASSIGN_OR_RETURN(exchanged, exchange_networks({hi.ipam(), host_id, hi.local()},
                                                      {mi.ipam(), id, mi.local()}));
    FED_ASSIGN_OR_RETURN(host_state, hi.ipam().cluster(id));
    FED_ASSIGN_OR_RETURN(member_state, mi.ipam().cluster(host_id));
    host_change = hi.ticket();
    member_change = mi.ticket();
  }
  const auto& host_view = exchanged.a_view_of_b;
  const auto& member_view = exchanged.b_view_of_a;
  FED_TRY(hi.save(host_change));
  FED_TRY(mi.save(member_change));

  FED_ASSIGN_OR_RETURN(auto host_gw, read_gateway_info(*host_.client));
  FED_ASSIGN_OR_RETURN(auto member_gw, read_gateway_info(*mem.client));
  FED_ASSIGN_OR_RETURN(auto member_addr, tunnel_address(fc));
  FED_ASSIGN_OR_RETURN(auto host_addr, host_tunnel_address());
  FED_ASSIGN_OR_RETURN(auto backend, tunnel_backend(fc));
  const PeeringSide host_side{host_id,   id,        hi.local(),  host_state, host_gw,
                              member_gw, host_addr, member_addr, backend};
  const PeeringSide member_side{id,      host_id,     mi.local(), member_state, member_gw,
                                host_gw, member_addr, host_addr,  backend};
  FED_ASSIGN_OR_RETURN(auto host_tunnel, apply_peering(*host_.client, host_side));
  FED_ASSIGN_OR_RETURN(auto member_tunnel, apply_peering(*mem.client, member_side));
  FED_TRY(forget_former_hosts(id, mem));

  const auto pair = pair_tunnel_status(host_id, host_tunnel, id, member_tunnel);
  const bool connected = pair.state == fedapi::TunnelState::Connected;
  json networks{
      {"podCIDR", mem.info.pod_cidr.str()},
      {"serviceCIDR", mem.info.service_cidr.str()},
      {"externalCIDR", mi.local().external_cidr.str()},
      {"remotePodCIDR", host_view.remote_pod_cidr.str()},
      {"remoteExternalCIDR", host_view.remote_external_cidr.str()},
      {"localRemappedPodCIDR", member_view.pod_remap() ? member_view.pod_remap()->str() : "None"},
      {"localRemappedExternalCIDR",
       member_view.external_remap() ? member_view.external_remap()->str() : "None"}};
  std::string message;
  if (!host_gw)
    message = "waiting for the gateway of " + host_id + " to publish its key";
  else if (!member_gw)
    message = "waiting for the gateway of " + id + " to publish its key";
  else if (!connected)
    message = pair.message;  // the gateways' own words: which hop has no handshake
  json tunnel{{"state", std::string(fedapi::to_string(pair.state))},
              {"backend", std::string(fedapi::to_string(backend))}};
  if (member_gw) tunnel["gatewayNode"] = member_gw->node;
  // null, not absent: the status is a merge patch, and a stale message must go.
  tunnel["message"] = message.empty() ? json(nullptr) : json(message);
  FED_TRY(report(fc, connected ? "Peered" : "TunnelPending",
                 connected ? "networks exchanged and tunnel connected" : message, networks, tunnel,
                 true, connected));
  // The host gateway's handshake comes through the host Peering's informer; the member's side
  // is looked at again (PendingRecheck).
  return kube::Requeue{recheck_.next(id, connected ? "" : message + "|" + pair.message,
                                     PendingRecheck::Clock::now(), age_of(fc))};
}

Status MembershipReconciler::leave(const json& fc) {
  const std::string id = cluster_id_of(fc);
  const std::string& host_id = host_.info.cluster_id;
  auto m = member(fc);
  if (m) {
    Member& mem = **m;
    FED_TRY(kube::remove_if_present(*mem.client, fedapi::ref(fedapi::kPeering, host_id)));
    FED_TRY(fedapi::remove_nat_mappings(*mem.client, host_id));
    FED_TRY(mem.ipam->remove_peer(host_id));
  } else {
    // Unjoin removes the member's objects itself; the host side must not wait for it.
    spdlog::warn("unjoin {}: member not reachable ({}); cleaning the host side only", id,
                 m.error().message());
  }
  FED_TRY(kube::remove_if_present(*host_.client, fedapi::ref(fedapi::kPeering, id)));
  FED_TRY(fedapi::remove_nat_mappings(*host_.client, id));
  FED_TRY(host_.ipam->remove_peer(id));
  connections_.forget(id);
  std::lock_guard lock(mu_);
  members_.erase(id);
  recheck_.forget(id);
  pruned_for_.erase(id);
  spdlog::info("member {} left the federation", id);
  return ok();
}

Status MembershipReconciler::forget_former_hosts(const std::string& id, Member& mem) {
  if (hosts_ == nullptr || !hosts_->has_synced() || hosts_->store().size() == 0) return ok();
  std::set<std::string> hosts{host_.info.cluster_id};
  for (const auto& h : hosts_->store().list()) hosts.insert((*h)["metadata"].value("name", ""));
  std::set<std::string> members;
  for (const auto& fc : clusters_.store().list()) members.insert(cluster_id_of(*fc));
  {
    // A member is looked at again and again (each Peering status, each recheck); its Peerings
    // are listed only when the hosts or members changed since the last time they were.
    std::lock_guard lock(mu_);
    const auto seen = pruned_for_.find(id);
    if (seen != pruned_for_.end() && seen->second == std::pair{hosts, members}) return ok();
  }
  auto listed = mem.client->list_all(fedapi::ref(fedapi::kPeering, ""));
  if (!listed) return listed.error().to_error().with_context("Peerings of " + id);
  std::vector<std::string> peerings;
  for (const auto& p : (*listed).value("items", json::array())) {
    peerings.push_back(p["metadata"].value("name", ""));
  }
  for (const auto& former : former_hosts(peerings, hosts, members)) {
    FED_TRY(kube::remove_if_present(*mem.client, fedapi::ref(fedapi::kPeering, former)));
    FED_TRY(fedapi::remove_nat_mappings(*mem.client, former));
    FED_TRY(mem.ipam->remove_peer(former));
    spdlog::info("member {}: host {} has left the federation: its tunnel with it is removed", id,
                 former);
  }
  std::lock_guard lock(mu_);
  pruned_for_[id] = {std::move(hosts), std::move(members)};
  return ok();
}

Status MembershipReconciler::report(const json& fc, const std::string& reason,
                                    const std::string& message, const json& networks,
                                    const json& tunnel, bool network_ready, bool tunnel_ready) {
  const auto generation = fc["metadata"].value("generation", std::int64_t{0});
  const std::string now = util::format_rfc3339(std::chrono::system_clock::now());
  auto conditions = fedapi::read_conditions(fc.value("status", json::object()));
  auto cond = [&](const char* type, bool value, const std::string& why) {
    fedapi::set_condition(conditions,
                          {type, value ? "True" : "False", why, message, "", generation}, now);
  };
  cond("NetworkReady", network_ready, network_ready ? "Exchanged" : reason);
  cond("TunnelReady", tunnel_ready, tunnel_ready ? "Connected" : reason);
  cond("Ready", network_ready && tunnel_ready, network_ready && tunnel_ready ? "Peered" : reason);
  json status{{"observedGeneration", generation}};
  fedapi::write_conditions(status, conditions);
  if (!networks.is_null()) status["networks"] = networks;
  if (!tunnel.is_null()) status["tunnel"] = tunnel;
  // Unchanged when the merge patch (whose nulls remove fields) would leave the status as it is.
  const json current = fc.value("status", json::object());
  json merged = current;
  merged.merge_patch(status);
  if (merged == current) return ok();
  auto r =
      host_.client->patch_status(fedapi::ref(fedapi::kFederatedCluster, fc["metadata"]["name"]),
                                 kube::PatchType::Merge, json{{"status", status}}.dump());
  if (!r && !r.error().is_not_found()) return r.error().to_error();
  return ok();
}

}  // namespace fed::federation
