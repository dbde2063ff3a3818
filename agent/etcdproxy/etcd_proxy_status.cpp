// EtcdProxy::status(): the proxy's state gathered into the status document. Kept apart from the
// data path in etcd_proxy.cpp: nothing here is on a forwarded connection's way.
#include "agent/etcdproxy/etcd_proxy.hpp"

#include <chrono>
#include <cstdio>
#include <mutex>

#include "agent/etcdproxy/leader_health_monitor.hpp"

namespace fed::etcdproxy {
namespace {

// etcdctl's spelling of a member id; empty for a member that never answered a status poll.
std::string hex_id(std::uint64_t id) {
  if (id == 0) return "";
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(id));
  return buf;
}

std::uint64_t count(const metrics::Counter* c) {
  return c ? static_cast<std::uint64_t>(c->value()) : 0;
}

// A failed MemberList is not retried for this long: status answers must stay quick while a
// member is down, and names rarely change.
constexpr auto kNamesRetry = std::chrono::seconds(10);

}  // namespace

std::map<std::uint64_t, std::string> EtcdProxy::member_names(const etcd::ClusterView& v) const {
  std::lock_guard lock(names_mu_);
  bool missing = false;
  for (const auto& m : v.members) missing = missing || (m.id != 0 && !names_.contains(m.id));
  const auto now = std::chrono::steady_clock::now();
  if (missing && client_ && now - names_tried_ >= kNamesRetry) {
    names_tried_ = now;
    if (auto list = client_->member_list()) {
      for (const auto& m : *list) names_[m.id] = m.name;
    }
  }
  return names_;
}

etcd::ProxyStatus EtcdProxy::status() const {
  etcd::ProxyStatus s;
  s.policy =
      std::string(etcd::to_string(options_.policy)) + (options_.classifier ? "+classifier" : "");
  const etcd::ClusterView v = view();
  const auto open = open_connections();
  const auto names = member_names(v);
  s.leader = v.leader;
  s.raft_term = v.term;
  s.leader_changes = v.leader_changes;
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    etcd::ProxyMemberStatus m;
    m.endpoint = options_.members[i];
    if (i < v.members.size()) {
      const auto& vm = v.members[i];
      m.id = hex_id(vm.id);
      if (const auto it = names.find(vm.id); it != names.end()) m.name = it->second;
      m.healthy = vm.healthy && vm.id != 0;
      m.term = vm.term;
      m.status_latency_ms =
          std::chrono::duration<double, std::milli>(vm.last_status_latency).count();
    }
    m.leader = v.leader == i;
    const MemberCounters& c = metrics_.member(i);
    m.connections = count(c.connections);
    m.active = open[i];
    m.picks_leader = count(c.picks[static_cast<int>(PickReason::Leader)]);
    m.picks_round_robin = count(c.picks[static_cast<int>(PickReason::RoundRobin)]);
    m.picks_fallback = count(c.picks[static_cast<int>(PickReason::Fallback)]);
    m.dial_failures = count(c.dial_failures);
    m.drained = count(c.drained);
    s.members.push_back(std::move(m));
  }
  {
    std::lock_guard lock(mu_);
    s.last_leader_move = last_move_;
  }
  if (const auto health = leader_health();
      health && health->time != std::chrono::system_clock::time_point{}) {
    s.classification = etcd::ProxyClassification{health->leader_class, health->time,
                                                 health->decision, health->moves};
  }
  return s;
}

}  // namespace fed::etcdproxy
