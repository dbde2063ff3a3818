#pragma once
// JSON gateway shapes of the lease, watch-stream, maintenance and election services (see
// codec.hpp for the conventions). Streaming endpoints (watch, keepalive, observe) send one JSON
// object per message wrapped in {"result": ...}; StreamSplitter cuts a byte stream into them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shared/etcd/types.hpp"
#include "shared/result/result.hpp"

namespace fed::etcd::codec {

std::string encode_lease_grant(std::int64_t ttl_seconds, std::int64_t id);
std::string encode_lease_id(std::int64_t id);  // keepalive, revoke
std::string encode_move_leader(std::uint64_t target_member_id);
std::string encode_campaign(std::string_view name, std::int64_t lease, std::string_view value);
std::string encode_election_name(std::string_view name);  // observe, leader
std::string encode_leader_key(const LeaderKey& key);      // resign
std::string encode_proclaim(const LeaderKey& key, std::string_view value);
std::string encode_member_add(const std::vector<std::string>& peer_urls, bool is_learner);
std::string encode_member_id(std::uint64_t id);  // promote, remove

Result<LeaseGrantResponse> decode_lease_grant(std::string_view body);
Result<LeaseKeepAliveResponse> decode_keepalive(std::string_view body);
Result<StatusResponse> decode_status(std::string_view body);
Result<std::vector<MemberInfo>> decode_member_list(std::string_view body);
Result<MemberAddResponse> decode_member_add(std::string_view body);
Result<LeaderKey> decode_campaign(std::string_view body);
// /v3/election/leader and each message of /v3/election/observe: the current leader's kv.
Result<KeyValue> decode_election_leader(std::string_view body);
Result<WatchResponse> decode_watch(std::string_view body);

// Unwraps one stream message: {"result": X} gives X's text, {"error": ...} an Error.
Result<std::string> unwrap_stream_message(std::string_view message, std::string_view what);

// Splits a stream of concatenated JSON objects (whitespace or newlines between them) into
// complete objects as bytes arrive; strings and escapes are respected.
class StreamSplitter final {
 public:
  // Appends `chunk` and returns every object it completes, in order.
  std::vector<std::string> feed(std::string_view chunk);
  // Bytes of an incomplete trailing object.
  std::size_t pending() const { return buffer_.size(); }

 private:
  std::string buffer_;
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  std::size_t scanned_ = 0;
};

}  // namespace fed::etcd::codec
