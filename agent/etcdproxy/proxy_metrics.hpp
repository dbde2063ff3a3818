#pragma once
// The proxy's Prometheus series, per member (label "member" = the member's URL). At the TCP
// level, inside TLS, gRPC requests are not visible: connections, bytes and picks are what the
// proxy can count; per-request rates come from etcd's own grpc_server_* metrics.

#include <cstddef>
#include <string>
#include <vector>

#include "shared/metrics/registry.hpp"

namespace fed::etcdproxy {

// Why a member was chosen for a new connection.
enum class PickReason { Leader, RoundRobin, Fallback };

// One member's counters, resolved once so the data path does no map lookups.
struct MemberCounters {
  metrics::Counter* connections = nullptr;  // accepted connections forwarded to it
  metrics::Gauge* active = nullptr;
  metrics::Counter* bytes_to_member = nullptr;
  metrics::Counter* bytes_from_member = nullptr;
  metrics::Counter* dial_failures = nullptr;
  metrics::Counter* drained = nullptr;  // closed because the member stopped leading
  metrics::Gauge* is_leader = nullptr;
  metrics::Counter* picks[3] = {nullptr, nullptr, nullptr};  // by PickReason
};

class ProxyMetrics final {
 public:
  ProxyMetrics(metrics::Registry& registry, const std::vector<std::string>& members);

  MemberCounters& member(std::size_t i) { return members_.at(i); }
  const MemberCounters& member(std::size_t i) const { return members_.at(i); }
  metrics::Counter& leader_changes() { return *leader_changes_; }
  metrics::Counter& failed_dials_all_members() { return *no_member_; }

 private:
  std::vector<MemberCounters> members_;
  metrics::Counter* leader_changes_;
  metrics::Counter* no_member_;
};

}  // namespace fed::etcdproxy
