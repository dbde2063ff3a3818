#pragma once
// The etcd proxy's status document: what `fed-agent etcd-proxy` serves on its status socket and
// `kubectl fed etcd status` prints. One definition for both ends, so the writer and the reader
// cannot drift apart; the wire form is JSON with kubectl-style camelCase keys.
//
// Request counters are per connection, not per gRPC request: inside TLS the proxy cannot see
// requests (proxy_metrics.hpp), so "picks" and "connections" are what it can honestly count.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "shared/result/result.hpp"

namespace fed::etcd {

// Where `fed-agent etcd-proxy --status-socket` listens and `kubectl fed etcd status --socket`
// connects unless told otherwise.
inline constexpr std::string_view kDefaultProxyStatusSocket = "/run/kubectl-fed/etcd-proxy.sock";

struct ProxyMemberStatus {
  std::string name;      // etcd --name, from MemberList; empty when not known yet
  std::string endpoint;  // the client URL the proxy forwards to
  std::string id;        // etcd member id in hex, as etcdctl prints it; empty until it answered
  bool healthy = false;
  bool leader = false;
  std::uint64_t term = 0;          // raft term of its last status answer
  double status_latency_ms = 0;    // round trip of the last Maintenance.Status poll
  std::uint64_t connections = 0;   // client connections forwarded to it
  std::uint64_t active = 0;        // of which open now
  std::uint64_t picks_leader = 0;  // chosen as the leader
  std::uint64_t picks_round_robin = 0;
  std::uint64_t picks_fallback = 0;  // chosen after the first choice failed to dial
  std::uint64_t dial_failures = 0;
  std::uint64_t drained = 0;  // closed because it stopped leading
};

// The classifier's last period (policy leader+classifier only).
struct ProxyClassification {
  std::optional<int> leader_class;  // 0 idle, 1 delay, 2 overload, 3 both; nullopt: unknown
  std::chrono::system_clock::time_point time;
  std::string decision;  // the policy's reason, or the move it made
  std::uint64_t moves = 0;
};

struct ProxyLeaderMove {
  std::string from;  // endpoint
  std::string to;
  std::chrono::system_clock::time_point time;
};

struct ProxyStatus {
  std::string policy;  // "round-robin" | "leader" | "leader+classifier"
  std::vector<ProxyMemberStatus> members;
  std::optional<std::size_t> leader;  // index into members
  std::uint64_t raft_term = 0;
  std::uint64_t leader_changes = 0;
  std::optional<ProxyLeaderMove> last_leader_move;
  std::optional<ProxyClassification> classification;
};

// "idle", "delay", "overload", "delay+overload"; "unknown" for nullopt or out of range.
std::string_view class_name(std::optional<int> leader_class);

// The wire form.
nlohmann::json to_json(const ProxyStatus& status);
std::string to_json_text(const ProxyStatus& status);

// Reads the wire form. Invalid names the field that is missing or of the wrong type, so a
// client talking to a proxy of another version says what it could not read.
Result<ProxyStatus> parse_proxy_status(std::string_view text);

}  // namespace fed::etcd
