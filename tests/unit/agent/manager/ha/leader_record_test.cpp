// The leadership record and the election's timing rules (agent/manager/ha).
#include "agent/manager/ha/leader_record.hpp"

#include <doctest/doctest.h>

#include "agent/manager/ha/leader_elector.hpp"

namespace fed::ha {

using namespace std::chrono_literals;

TEST_CASE("a leader record reads back as written, and equal records are equal bytes") {
  const LeaderRecord r{"c1/fed-manager-7c9f-x2", 4, "2026-11-26T19:00:00Z"};
  CHECK(encode(r) ==
        R"({"holder":"c1/fed-manager-7c9f-x2","epoch":4,"acquiredAt":"2026-11-26T19:00:00Z"})");
  auto back = decode_leader_record(encode(r), "/kubectl-fed/leader");
  REQUIRE(back);
  CHECK(*back == r);
  CHECK(encode(*back) == encode(r));
}

TEST_CASE("an unreadable record names the key and the way out") {
  for (const char* bad : {"", "not json", "[]", R"({"epoch":1})", R"({"holder":1,"epoch":1})",
                          R"({"holder":"a","epoch":0})", R"({"holder":"a","epoch":"1"})"}) {
    auto r = decode_leader_record(bad, "/kubectl-fed/leader");
    INFO(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message().find("leader record /kubectl-fed/leader: ") == 0);
    CHECK(r.error().message().find("delete the key") != std::string::npos);
  }
}

TEST_CASE("terms count up from 1, and the fence compares the whole value") {
  const auto now = std::chrono::system_clock::time_point{} + 1800000000s;
  const LeaderRecord first = next_term(std::nullopt, "c1/a", now);
  CHECK(first.epoch == 1);
  CHECK(first.holder == "c1/a");
  CHECK(first.acquired_at == "2027-01-15T08:00:00.000Z");
  const LeaderRecord second = next_term(first, "c2/b", now);
  CHECK(second.epoch == 2);
  CHECK(second.holder == "c2/b");

  const etcd::Compare c = holds("/k", second);
  CHECK(c.key == "/k");
  CHECK(c.target == etcd::Compare::Target::Value);
  CHECK(c.result == etcd::Compare::Result::Equal);
  CHECK(c.value == encode(second));
}

TEST_CASE("a released record has no holder and keeps its epoch for the next term") {
  const auto now = std::chrono::system_clock::time_point{} + 1800000000s;
  const LeaderRecord mine = next_term(LeaderRecord{"c1/a", 6, ""}, "c2/b", now);
  const LeaderRecord gone = released(mine);
  CHECK(gone.released());
  CHECK_FALSE(mine.released());
  CHECK(gone.epoch == 7);
  auto back = decode_leader_record(encode(gone), "/kubectl-fed/leader");
  REQUIRE(back);
  CHECK(back->released());
  CHECK(next_term(*back, "c3/c", now).epoch == 8);
}

TEST_CASE("timings keep a renewal inside the deadline and a margin below the lease") {
  CHECK(ElectionTimings{}.validate());
  ElectionTimings t;
  t.renew_deadline = 560ms;  // within 10 % of the 600 ms lease: two leaders could overlap
  auto bad = t.validate();
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("renew deadline (560 ms)") != std::string::npos);
  t = {};
  t.renew_period = 450ms;
  CHECK_FALSE(t.validate());
  t = {};
  t.retry_period = 0ms;
  CHECK_FALSE(t.validate());
  t = ElectionTimings{15000ms, 10000ms, 2000ms, 2000ms};  // client-go's defaults pass
  CHECK(t.validate());
}

}  // namespace fed::ha
