#include "agent/etcdproxy/proxy_metrics.hpp"

namespace fed::etcdproxy {

ProxyMetrics::ProxyMetrics(metrics::Registry& r, const std::vector<std::string>& members) {
  auto& connections =
      r.counter_family("fed_etcd_proxy_connections_total",
                       "Client connections forwarded to each etcd member.", {"member"});
  auto& active = r.gauge_family("fed_etcd_proxy_active_connections",
                                "Open forwarded connections per etcd member.", {"member"});
  auto& bytes =
      r.counter_family("fed_etcd_proxy_bytes_total",
                       "Bytes forwarded per etcd member and direction.", {"member", "direction"});
  auto& dial = r.counter_family("fed_etcd_proxy_dial_failures_total",
                                "Failed connection attempts to each etcd member.", {"member"});
  auto& drained = r.counter_family(
      "fed_etcd_proxy_drained_connections_total",
      "Connections closed because their member stopped being the leader.", {"member"});
  auto& leader = r.gauge_family("fed_etcd_proxy_member_is_leader",
                                "1 for the member the proxy believes leads, else 0.", {"member"});
  auto& picks =
      r.counter_family("fed_etcd_proxy_picks_total",
                       "Members chosen for new connections, by reason.", {"member", "reason"});
  for (const auto& m : members) {
    MemberCounters c;
    c.connections = &connections.with({m});
    c.active = &active.with({m});
    c.bytes_to_member = &bytes.with({m, "to_member"});
    c.bytes_from_member = &bytes.with({m, "from_member"});
    c.dial_failures = &dial.with({m});
    c.drained = &drained.with({m});
    c.is_leader = &leader.with({m});
    c.picks[static_cast<int>(PickReason::Leader)] = &picks.with({m, "leader"});
    c.picks[static_cast<int>(PickReason::RoundRobin)] = &picks.with({m, "round_robin"});
    c.picks[static_cast<int>(PickReason::Fallback)] = &picks.with({m, "fallback"});
    members_.push_back(c);
  }
  leader_changes_ = &r.counter("fed_etcd_proxy_leader_changes_total",
                               "Leader changes the proxy observed (one known leader to another).");
  no_member_ = &r.counter("fed_etcd_proxy_unroutable_connections_total",
                          "Client connections closed because no member could be reached.");
}

}  // namespace fed::etcdproxy
