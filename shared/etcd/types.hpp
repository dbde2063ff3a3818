#pragma once
// Plain values of the etcd v3 API as the project uses them: keys and values are raw bytes in
// std::string (the JSON gateway's base64 is the codec's business), ids and revisions int64.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fed::etcd {

// Every response's header: which member answered, at which revision and raft term.
struct ResponseHeader {
  std::uint64_t cluster_id = 0;
  std::uint64_t member_id = 0;
  std::int64_t revision = 0;
  std::uint64_t raft_term = 0;
};

struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  std::int64_t lease = 0;
};

// Range over [key, range_end); an empty range_end means the single key `key`.
struct RangeRequest {
  std::string key;
  std::string range_end;
  std::int64_t limit = 0;
  std::int64_t revision = 0;
  bool serializable = false;  // served by any member without the leader (may be stale)
  bool keys_only = false;
  bool count_only = false;
};

struct RangeResponse {
  ResponseHeader header;
  std::vector<KeyValue> kvs;
  bool more = false;
  std::int64_t count = 0;
};

struct PutRequest {
  std::string key;
  std::string value;
  std::int64_t lease = 0;
  bool prev_kv = false;
};

struct PutResponse {
  ResponseHeader header;
  std::optional<KeyValue> prev_kv;
};

struct DeleteRangeRequest {
  std::string key;
  std::string range_end;
  bool prev_kv = false;
};

struct DeleteRangeResponse {
  ResponseHeader header;
  std::int64_t deleted = 0;
  std::vector<KeyValue> prev_kvs;
};

// One comparison of a transaction: `target` of `key` compared with `result` to a value.
struct Compare {
  enum class Result { Equal, Greater, Less, NotEqual };
  enum class Target { Version, Create, Mod, Value, Lease };
  Result result = Result::Equal;
  Target target = Target::Mod;
  std::string key;
  std::int64_t number = 0;  // version, create/mod revision or lease, per target
  std::string value;        // for Target::Value
};

// One operation of a transaction branch.
struct TxnOp {
  enum class Kind { Range, Put, Delete };
  Kind kind = Kind::Range;
  RangeRequest range;
  PutRequest put;
  DeleteRangeRequest del;
};

struct TxnRequest {
  std::vector<Compare> compare;
  std::vector<TxnOp> success;
  std::vector<TxnOp> failure;
};

// The result of one TxnOp, in the order of the branch that ran.
struct TxnOpResponse {
  TxnOp::Kind kind = TxnOp::Kind::Range;
  RangeResponse range;
  PutResponse put;
  DeleteRangeResponse del;
};

struct TxnResponse {
  ResponseHeader header;
  bool succeeded = false;
  std::vector<TxnOpResponse> responses;
};

struct LeaseGrantResponse {
  ResponseHeader header;
  std::int64_t id = 0;
  std::int64_t ttl = 0;
};

// One keep-alive round; ttl 0 means the lease has expired or was revoked.
struct LeaseKeepAliveResponse {
  ResponseHeader header;
  std::int64_t id = 0;
  std::int64_t ttl = 0;
};

struct WatchRequest {
  std::string key;
  std::string range_end;
  std::int64_t start_revision = 0;
  bool prev_kv = false;
  bool progress_notify = false;
};

struct WatchEvent {
  enum class Type { Put, Delete };
  Type type = Type::Put;
  KeyValue kv;
  std::optional<KeyValue> prev_kv;
};

// One message of a watch stream: creation, events, progress or cancellation.
struct WatchResponse {
  ResponseHeader header;
  std::int64_t watch_id = 0;
  bool created = false;
  bool canceled = false;
  std::int64_t compact_revision = 0;
  std::string cancel_reason;
  std::vector<WatchEvent> events;
};

// Maintenance.Status of one member.
struct StatusResponse {
  ResponseHeader header;
  std::string version;
  std::int64_t db_size = 0;
  std::uint64_t leader = 0;  // member id of the leader this member follows; 0 = none
  std::uint64_t raft_index = 0;
  std::uint64_t raft_term = 0;
  std::uint64_t raft_applied_index = 0;
  bool is_learner = false;
  std::vector<std::string> errors;
};

// One member of Cluster.MemberList.
struct MemberInfo {
  std::uint64_t id = 0;
  std::string name;  // etcd --name; empty for a member added but not started yet
  std::vector<std::string> client_urls;
  std::vector<std::string> peer_urls;
  bool is_learner = false;
};

// What MemberAdd answers: the member added and the membership after it.
struct MemberAddResponse {
  MemberInfo member;
  std::vector<MemberInfo> members;
};

// The key an election campaign holds; what resign and proclaim need.
struct LeaderKey {
  std::string name;
  std::string key;
  std::int64_t rev = 0;
  std::int64_t lease = 0;
};

}  // namespace fed::etcd
