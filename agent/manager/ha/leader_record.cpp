#include "agent/manager/ha/leader_record.hpp"

#include <nlohmann/json.hpp>

#include "shared/util/rfc3339.hpp"

namespace fed::ha {

std::string encode(const LeaderRecord& record) {
  // ordered_json keeps insertion order: the bytes depend on the fields only.
  nlohmann::ordered_json j;
  j["holder"] = record.holder;
  j["epoch"] = record.epoch;
  j["acquiredAt"] = record.acquired_at;
  return j.dump();
}

Result<LeaderRecord> decode_leader_record(std::string_view value, std::string_view key) {
  const auto j = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
  const auto invalid = [&](const std::string& why) {
    return fail(ErrorCode::Invalid, "leader record " + std::string(key) + ": " + why +
                                        " (delete the key to let the managers elect again)");
  };
  if (!j.is_object()) return invalid("not a JSON object");
  if (!j.contains("holder") || !j["holder"].is_string()) {
    return invalid("holder must be a string (empty once released)");
  }
  if (!j.contains("epoch") || !j["epoch"].is_number_integer() ||
      j["epoch"].get<std::int64_t>() < 1) {
    return invalid("epoch must be an integer >= 1");
  }
  LeaderRecord r;
  r.holder = j["holder"].get<std::string>();
  r.epoch = j["epoch"].get<std::int64_t>();
  if (j.contains("acquiredAt") && j["acquiredAt"].is_string()) {
    r.acquired_at = j["acquiredAt"].get<std::string>();
  }
  return r;
}

etcd::Compare holds(const std::string& key, const LeaderRecord& record) {
  etcd::Compare c;
  c.result = etcd::Compare::Result::Equal;
  c.target = etcd::Compare::Target::Value;
  c.key = key;
  c.value = encode(record);
  return c;
}

LeaderRecord next_term(const std::optional<LeaderRecord>& current, std::string holder,
                       std::chrono::system_clock::time_point now) {
  return LeaderRecord{std::move(holder), current ? current->epoch + 1 : 1,
                      util::format_rfc3339_millis(now)};
}

LeaderRecord released(const LeaderRecord& mine) {
  return LeaderRecord{"", mine.epoch, mine.acquired_at};
}

}  // namespace fed::ha
