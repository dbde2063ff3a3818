#pragma once
// EtcdClient: a leader-aware etcd v3 client for the project's own state (the federation store,
// elections), speaking the v3 JSON gateway over libcurl with mTLS.
//
// Why the JSON gateway and not gRPC: every etcd >= 3.3 serves it on the client port with the
// same TLS and auth, so the client needs only libcurl and nlohmann/json, which fed_shared already
// links; the gRPC route would add grpc++/protobuf, etcd's .proto files (with gogoproto and
// google.api imports to strip) and code generation to the build for the same calls. The price is
// HTTP/1.1 (one request per connection at a time, so concurrency = pooled connections) and
// base64/JSON encoding, negligible next to a raft round trip. Streams (watch, keepalive,
// observe) are server-streamed responses to one request, which covers what the project needs.
// kube-apiserver's own gRPC traffic does not go through this client: agent/etcdproxy forwards it
// at the TCP level.
//
// Routing: every member is polled with Maintenance.Status on its own thread every poll_period
// (never blocking on a dead one), and every response header's raft_term is fed to the
// LeaderTracker; a higher term triggers an immediate poll of all members. Requests go to the
// member the policy picks; reads and calls that failed before sending move to another member.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "shared/etcd/gateway_transport.hpp"
#include "shared/etcd/leader_tracker.hpp"
#include "shared/etcd/types.hpp"
#include "shared/result/result.hpp"

namespace fed::etcd {

struct ClientOptions {
  std::vector<std::string> endpoints;  // "https://10.99.0.1:2379", one per member
  TlsFiles tls;
  RoutingPolicy policy = RoutingPolicy::Leader;
  std::chrono::milliseconds poll_period{500};     // Maintenance.Status of every member
  std::chrono::milliseconds status_timeout{800};  // per status poll
  std::chrono::milliseconds request_timeout{5000};
  std::chrono::milliseconds dial_timeout{1000};
  int max_attempts = 3;  // members tried per call (reads, or when nothing was sent)
  // Called from a polling thread, outside the client's lock, when leader() changes.
  std::function<void(std::optional<std::size_t> old_leader, std::optional<std::size_t> leader)>
      on_leader_change;
};

// A consistent copy of the routing state, for status output and metrics.
struct ClusterView {
  struct Member {
    std::string endpoint;
    std::uint64_t id = 0;
    bool healthy = true;
    std::uint64_t term = 0;
    std::chrono::microseconds last_status_latency{0};
  };
  std::vector<Member> members;
  std::optional<std::size_t> leader;
  std::uint64_t term = 0;
  std::uint64_t leader_changes = 0;
};

class EtcdClient final {
 public:
  // Validates the options and starts one status poller per member. Does not wait for a leader.
  static Result<std::unique_ptr<EtcdClient>> create(ClientOptions options);
  ~EtcdClient();  // stop()
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  // KV. Writes are retried on another member only when nothing was sent.
  Result<RangeResponse> range(const RangeRequest& request);
  Result<PutResponse> put(const PutRequest& request);
  Result<DeleteRangeResponse> delete_range(const DeleteRangeRequest& request);
  // `timeout`, if set, bounds this call instead of request_timeout (a leader's renewal may use
  // all the time left before its deadline).
  Result<TxnResponse> txn(const TxnRequest& request,
                          std::optional<std::chrono::milliseconds> timeout = {});

  // Leases: grant (id 0 = server-chosen), one keep-alive round, revoke.
  Result<LeaseGrantResponse> lease_grant(std::int64_t ttl_seconds, std::int64_t id = 0);
  Result<LeaseKeepAliveResponse> lease_keepalive_once(std::int64_t id);
  Status lease_revoke(std::int64_t id);

  // Streams watch responses to `on_response` until it returns false (ok), `stop` (ok) or the
  // stream fails (Unavailable; the caller resumes from the last revision it saw).
  Status watch(const WatchRequest& request,
               const std::function<bool(const WatchResponse&)>& on_response, std::stop_token stop);

  // Maintenance: one member's status; leadership transfer (sent to the current leader).
  Result<StatusResponse> status(std::size_t member);
  Status move_leader(std::uint64_t target_member_id);
  // Cluster.MemberList from any member: ids, names, client URLs.
  Result<std::vector<MemberInfo>> member_list();
  // Cluster membership changes, sent to the leader (etcd forwards them anyway). A learner
  // replicates without voting until promoted, so adding one never costs the quorum.
  Result<MemberAddResponse> member_add(const std::vector<std::string>& peer_urls, bool is_learner);
  Status member_promote(std::uint64_t id);
  Status member_remove(std::uint64_t id);

  // Election (v3election): campaign blocks until this value leads `name` or `stop`.
  Result<LeaderKey> campaign(std::string_view name, std::int64_t lease, std::string_view value,
                             std::stop_token stop);
  Status proclaim(const LeaderKey& key, std::string_view value);
  Status resign(const LeaderKey& key);
  Result<KeyValue> election_leader(std::string_view name);
  // Streams the leader's key-value of `name` at each change, like watch.
  Status observe(std::string_view name, const std::function<bool(const KeyValue&)>& on_leader,
                 std::stop_token stop);

  // Stops and joins the status pollers: no on_leader_change call runs once it returns, and
  // view()/leader() keep answering with the last state learned, so an owner can quiesce the
  // client while other threads may still read it. Idempotent; not concurrently with itself.
  void stop();

  // Routing state.
  ClusterView view() const;
  std::optional<std::size_t> leader() const;
  // Polls every member now (concurrently) and waits up to `timeout` for a known leader.
  Result<std::size_t> wait_for_leader(std::chrono::milliseconds timeout);
  std::size_t size() const;

 private:
  struct State;
  explicit EtcdClient(std::unique_ptr<State> state);

  enum class Retry { Always, OnlyUnsent };
  // Sends `body` to `path` on picked members, feeding headers and failures to the tracker.
  Result<std::string> call(std::string_view path, std::string body, Retry retry,
                           std::string_view what, std::optional<std::size_t> member = {},
                           std::optional<std::chrono::milliseconds> timeout = {});
  Status stream(std::string_view path, std::string body, std::string_view what,
                const std::function<bool(std::string_view)>& on_message, std::stop_token stop);

  std::unique_ptr<State> state_;
};

}  // namespace fed::etcd
