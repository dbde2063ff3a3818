#include "shared/etcd/proxy_status.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "shared/util/rfc3339.hpp"

using namespace fed::etcd;

namespace {

std::chrono::system_clock::time_point at(const char* text) {
  return fed::util::parse_rfc3339(text).value();
}

ProxyStatus sample() {
  ProxyStatus s;
  s.policy = "leader+classifier";
  for (int i = 0; i < 3; ++i) {
    ProxyMemberStatus m;
    m.name = "e" + std::to_string(i + 1);
    m.endpoint = "https://10.199.0." + std::to_string(i + 1) + ":2379";
    m.id = "00000000000000a" + std::to_string(i);
    m.healthy = i != 2;
    m.leader = i == 1;
    m.term = 7;
    m.status_latency_ms = 1.25 * (i + 1);
    m.connections = 10u + static_cast<unsigned>(i);
    m.active = i == 1 ? 3 : 0;
    m.picks_leader = i == 1 ? 9 : 0;
    m.picks_round_robin = 1;
    m.picks_fallback = i == 0 ? 2 : 0;
    m.dial_failures = i == 2 ? 4 : 0;
    m.drained = i == 0 ? 5 : 0;
    s.members.push_back(m);
  }
  s.leader = 1;
  s.raft_term = 7;
  s.leader_changes = 2;
  s.last_leader_move =
      ProxyLeaderMove{s.members[0].endpoint, s.members[1].endpoint, at("2026-11-24T20:00:00Z")};
  s.classification = ProxyClassification{1, at("2026-11-24T20:01:00Z"), "holding", 1};
  return s;
}

}  // namespace

TEST_CASE("the status document names the leader by endpoint and id, and round-trips") {
  const ProxyStatus s = sample();
  const auto j = to_json(s);
  CHECK(j["leader"] == "https://10.199.0.2:2379");
  CHECK(j["leaderId"] == "00000000000000a1");
  CHECK(j["policy"] == "leader+classifier");
  CHECK(j["members"][1]["picks"]["leader"] == 9);
  CHECK(j["classification"]["class"] == "delay");
  CHECK(j["lastLeaderMove"]["time"] == "2026-11-24T20:00:00Z");

  auto back = parse_proxy_status(to_json_text(s));
  REQUIRE(back);
  CHECK(back->leader == std::optional<std::size_t>(1));
  CHECK(back->members.size() == 3);
  CHECK(back->members[2].dial_failures == 4);
  CHECK(back->members[2].name == "e3");
  CHECK(back->members[0].drained == 5);
  CHECK(back->members[1].status_latency_ms == doctest::Approx(2.5));
  REQUIRE(back->classification);
  CHECK(back->classification->leader_class == std::optional<int>(1));
  CHECK(back->classification->decision == "holding");
  REQUIRE(back->last_leader_move);
  CHECK(back->last_leader_move->to == "https://10.199.0.2:2379");
  CHECK(to_json(*back) == j);
}

TEST_CASE("no leader, no move and no classifier are nulls, not missing keys") {
  ProxyStatus s;
  s.policy = "round-robin";
  const auto j = to_json(s);
  CHECK(j["leader"].is_null());
  CHECK(j["lastLeaderMove"].is_null());
  CHECK(j["classification"].is_null());
  auto back = parse_proxy_status(j.dump());
  REQUIRE(back);
  CHECK_FALSE(back->leader);
  CHECK_FALSE(back->classification);

  // A period whose scrape failed has no class.
  s.classification = ProxyClassification{std::nullopt, at("2026-11-24T20:01:00Z"), "scrape", 0};
  const auto unknown = to_json(s);
  CHECK(unknown["classification"]["class"] == "unknown");
  CHECK(unknown["classification"]["classIndex"].is_null());
  CHECK(parse_proxy_status(unknown.dump()).value().classification->leader_class == std::nullopt);
}

TEST_CASE("malformed documents name what is wrong") {
  const auto missing = parse_proxy_status(R"({"raftTerm": 1})");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message() == "status document: missing policy");

  auto j = to_json(sample());
  j["members"][1]["picks"].erase("roundRobin");
  const auto picks = parse_proxy_status(j.dump());
  REQUIRE_FALSE(picks);
  CHECK(picks.error().message() == "status document: missing members[1].picks.roundRobin");

  j = to_json(sample());
  j["members"][0]["healthy"] = "yes";
  const auto type = parse_proxy_status(j.dump());
  REQUIRE_FALSE(type);
  CHECK(type.error().message() ==
        "status document: members[0].healthy has the wrong type (string)");

  j = to_json(sample());
  j["lastLeaderMove"]["time"] = "yesterday";
  CHECK_FALSE(parse_proxy_status(j.dump()));

  const auto text = parse_proxy_status("HTTP/1.1 400 Bad Request\r\n");
  REQUIRE_FALSE(text);
  CHECK(text.error().message().find("status document is not JSON") == 0);
  CHECK_FALSE(parse_proxy_status("[1,2]"));
  CHECK_FALSE(parse_proxy_status(""));
}

TEST_CASE("class names") {
  CHECK(class_name(0) == "idle");
  CHECK(class_name(3) == "delay+overload");
  CHECK(class_name(4) == "unknown");
  CHECK(class_name(-1) == "unknown");
  CHECK(class_name(std::nullopt) == "unknown");
}
