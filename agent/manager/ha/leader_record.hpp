#pragma once
// The leadership record of the federation's managers (seed 000, docs/HA.md): one etcd key whose
// value names the holder and its epoch. The value stays the same for a whole term — a renewal
// rewrites it unchanged, which moves only the key's mod_revision — so "the value is still
// mine" is the compare that fences every write of a leader (a deposed one's fails). Pure.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "shared/etcd/types.hpp"
#include "shared/result/result.hpp"

namespace fed::ha {

struct LeaderRecord {
  std::string holder;       // the manager's identity: host cluster and pod; empty: released
  std::int64_t epoch = 0;   // 1 for the first leader, +1 at every takeover
  std::string acquired_at;  // RFC 3339, for people; no decision reads it

  // A resignation leaves the record with no holder rather than deleting the key, so that the
  // next term still counts on from its epoch (a deleted key would start again at 1).
  bool released() const { return holder.empty(); }

  friend bool operator==(const LeaderRecord&, const LeaderRecord&) = default;
};

// The record as stored: compact JSON with fixed key order, so equal records are equal bytes.
std::string encode(const LeaderRecord& record);
// Invalid, naming the key, when `value` is not a record (a released one is).
Result<LeaderRecord> decode_leader_record(std::string_view value, std::string_view key);

// The compare that holds only while `record` is the value of `key`.
etcd::Compare holds(const std::string& key, const LeaderRecord& record);

// The record of the next term after `current` (none: the first), for `holder` at `now`.
// `current` may be released: the epoch counts on from it.
LeaderRecord next_term(const std::optional<LeaderRecord>& current, std::string holder,
                       std::chrono::system_clock::time_point now);

// What `mine` becomes when its holder resigns: no holder, the same epoch.
LeaderRecord released(const LeaderRecord& mine);

}  // namespace fed::ha
