#include "agent/manager/hosts/host_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <set>

#include "agent/manager/hosts/etcd_membership.hpp"
#include "agent/manager/hosts/member_health.hpp"
#include "agent/manager/membership/tunnel_addresses.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/kube/object_edits.hpp"

namespace fed::hosts {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// A learner catching up, a member starting: looked at again soon, not at the queue's backoff.
constexpr auto kSettlePeriod = 1s;
// How often a member's health is asked: `kubectl fed status` shows it this late at most.
constexpr auto kProbePeriod = 5s;

kube::ResourceRef ref_of(const std::string& name) {
  return fedapi::ref(fedapi::kFederationHost, name);
}

}  // namespace

HostReconciler::HostReconciler(std::shared_ptr<kube::DynamicClient> client, kube::Informer& hosts,
                               etcd::EtcdClient& etcd, etcd::TlsFiles tls, std::string host_id,
                               std::string federation_id)
    : client_(std::move(client)),
      hosts_(hosts),
      etcd_(etcd),
      probe_(std::move(tls)),
      host_id_(std::move(host_id)),
      federation_id_(std::move(federation_id)) {}

Result<kube::Requeue> HostReconciler::reconcile(const kube::Request& request) {
  auto object = hosts_.store().get("", request.name);
  if (!object) return kube::Requeue{};
  const json& host = *object;
  const std::string peer_url = host.value("spec", json::object()).value("etcdPeerURL", "");
  const bool deleting = host["metadata"].contains("deletionTimestamp");
  const bool finalized = kube::has_finalizer(host, kEtcdMemberFinalizer);
  if (deleting && !finalized) return kube::Requeue{};
  if (!deleting && !finalized) {
    FED_TRY(kube::set_finalizer(*client_, ref_of(request.name), host, kEtcdMemberFinalizer, true));
    return kube::Requeue{};
  }
  if (!deleting && federation::tunnel_address_of(host).empty()) {
    FED_TRY(assign_tunnel_address(host));
    return kube::Requeue{};  // the update comes back through the informer
  }

  FED_ASSIGN_OR_RETURN(auto members, etcd_.member_list());
  const MemberDecision decision = decide(members, peer_url, deleting);
  switch (decision.action) {
    case MemberAction::Add: {
      FED_ASSIGN_OR_RETURN(auto added, etcd_.member_add({peer_url}, /*is_learner=*/true));
      spdlog::info("host {}: added etcd member {} at {} as a learner", request.name,
                   hex_id(added.member.id), peer_url);
      FED_TRY(report(host, added.members, peer_url, false,
                     "added as a learner; waiting for it to start"));
      return kube::Requeue{kSettlePeriod, true};
    }
    case MemberAction::Promote: {
      if (auto promoted = etcd_.member_promote(decision.member->id); !promoted) {
        // etcd refuses a learner that has not caught up with the leader yet.
        FED_TRY(report(host, members, peer_url, false,
                       "catching up before its promotion: " + promoted.error().message()));
        return kube::Requeue{kSettlePeriod, true};
      }
      spdlog::info("host {}: etcd member {} promoted to a voting member", request.name,
                   hex_id(decision.member->id));
      FED_ASSIGN_OR_RETURN(members, etcd_.member_list());
      break;
    }
    case MemberAction::Remove:
      // A removed etcd leader steps down only after committing its removal, and the election
      // that follows outlasts the manager's renew deadline: hand the leadership over first.
      if (request.name != host_id_ && probe_.probe(members, decision.member->id).raft_leader) {
        if (const auto own = own_member(members)) move_raft_leader(members, own->id);
      }
      FED_TRY(etcd_.member_remove(decision.member->id));
      spdlog::info("host {}: etcd member {} removed", request.name, hex_id(decision.member->id));
      FED_TRY(
          kube::set_finalizer(*client_, ref_of(request.name), host, kEtcdMemberFinalizer, false));
      return kube::Requeue{};
    case MemberAction::KeepLast:
      FED_TRY(report(host, members, peer_url, true,
                     "its etcd member is the federation's last voting member: add another host "
                     "first, or remove the federation"));
      return kube::Requeue{30s, true};
    case MemberAction::None:
      if (deleting) {  // no member (never added, or already removed)
        FED_TRY(
            kube::set_finalizer(*client_, ref_of(request.name), host, kEtcdMemberFinalizer, false));
        return kube::Requeue{};
      }
      break;
  }
  const auto member = member_at(members, peer_url);
  const bool started = member && !member->name.empty();
  json health = nullptr;
  if (started && !deleting) {
    health = health_status(probe_.probe(members, member->id));
  }
  FED_TRY(report(host, members, peer_url, deleting,
                 started ? "" : "added; waiting for the member to start", health));
  if (!started || member->is_learner) return kube::Requeue{kSettlePeriod, true};
  return kube::Requeue{kProbePeriod, true};
}

std::optional<etcd::MemberInfo> HostReconciler::own_member(
    const std::vector<etcd::MemberInfo>& members) const {
  auto own = hosts_.store().get("", host_id_);
  if (!own) return std::nullopt;
  return member_at(members, (*own)["spec"].value("etcdPeerURL", ""));
}

void HostReconciler::move_raft_leader(const std::vector<etcd::MemberInfo>& members,
                                      std::uint64_t id) {
  if (auto moved = probe_.make_leader(members, id); !moved) {
    spdlog::warn("host {}: could not move the federation etcd's leadership to its member {}: {}",
                 host_id_, hex_id(id), moved.error().message());
    return;
  }
  spdlog::info("host {}: the federation etcd's leadership moved to its member {}", host_id_,
               hex_id(id));
}

Status HostReconciler::assign_tunnel_address(const json& host) {
  const std::string name = host["metadata"].value("name", "");
  std::string address(federation::kFirstHostTunnelAddress);
  if (name != federation_id_) {
    std::set<std::string> used;
    for (const auto& other : hosts_.store().list()) {
      used.insert(federation::tunnel_address_of(*other));
    }
    const auto next = federation::next_host_tunnel_address(used);
    if (!next) return fail(ErrorCode::Unavailable, "no free host tunnel address left");
    address = *next;
  }
  // Conditional on the resourceVersion; one worker, so no two hosts get one address.
  json patch{{"metadata",
              {{"resourceVersion", host["metadata"].value("resourceVersion", "")},
               {"annotations", {{std::string(federation::kTunnelAddressAnnotation), address}}}}}};
  auto r = client_->patch(ref_of(name), kube::PatchType::Merge, patch.dump());
  if (!r) return r.error().to_error();
  spdlog::info("host {}: tunnel address {}", name, address);
  return ok();
}

Status HostReconciler::report(const json& host, const std::vector<etcd::MemberInfo>& members,
                              const std::string& peer_url, bool deleting,
                              const std::string& message, const json& health) {
  const std::string name = host["metadata"].value("name", "");
  const auto member = member_at(members, peer_url);
  json fields{{"phase", phase_of(member, deleting)},
              {"started", member.has_value() && !member->name.empty()},
              {"initialCluster", initial_cluster(members, name, peer_url)}};
  fields["memberID"] = member ? json(hex_id(member->id)) : json(nullptr);
  if (!health.is_null()) fields["etcd"] = health;
  const bool ready = member && !member->is_learner && !member->name.empty() && !deleting;
  return kube::patch_ready_status(*client_, ref_of(name), host, std::move(fields), ready,
                                  ready ? "VotingMember" : phase_of(member, deleting),
                                  ready ? "a voting member of the federation etcd" : message);
}

void add_host_controller(kube::ControllerManager& manager, etcd::EtcdClient& etcd,
                         const etcd::TlsFiles& tls, const std::string& host_id,
                         const std::string& federation_id) {
  kube::Informer& hosts = manager.informer(fedapi::ref(fedapi::kFederationHost, ""));
  auto& reconciler = manager.own(
      std::make_unique<HostReconciler>(manager.client(), hosts, etcd, tls, host_id, federation_id));
  manager.add_controller(reconciler, "federation-host", 1).watch(hosts);
}

}  // namespace fed::hosts
