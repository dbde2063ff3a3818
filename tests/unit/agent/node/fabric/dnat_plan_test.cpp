#include "agent/node/fabric/dnat_plan.hpp"

#include <doctest/doctest.h>

#include "agent/node/fabric/chain_names.hpp"
#include "agent/node/fabric/dnat_sync.hpp"
#include "agent/node/fabric/node_state_parse.hpp"
#include "tests/unit/agent/node/fabric/fake_kernel.hpp"
#include "tests/unit/agent/node/fabric/net_literals.hpp"
#include "tests/unit/agent/node/fabric/sample_state.hpp"

using namespace fed::fabric;
using fed::net::Ipv4;
using testing::cidr;

namespace {

// A gateway whose peer "b" has `n` mappings 192.168.0.1+i -> i.
NodeNetworkState gateway_with_mappings(std::uint32_t n) {
  auto st = testing::sample_gateway();
  st.external_cidr = cidr("192.168.0.0/16");
  auto& m = st.peers[0].nat_mappings;
  m.clear();
  for (std::uint32_t i = 0; i < n; ++i) m.push_back(NatMapping{Ipv4{0xC0A80001u + i}, Ipv4{i}});
  return st;
}

constexpr std::chrono::hours kNoVerify{1};

}  // namespace

TEST_CASE("a peer's mappings: one map of external address to endpoint, one dispatch rule") {
  auto want = desired_dnat(testing::sample_gateway());
  CHECK(want.table);
  REQUIRE(want.maps.size() == 1);
  const auto& map = want.maps.at(mapping_map("b"));
  REQUIRE(map.size() == 1);
  CHECK(map.at(testing::ip("192.168.10.45").value) == testing::ip("10.0.0.77").value);
  REQUIRE(want.rules.size() == 1);
  CHECK(want.rules[0].map == mapping_map("b"));
  CHECK(want.rules[0].src == cidr("10.0.0.0/24"));
  CHECK(want.rules[0].dst == cidr("192.168.10.0/24"));
  CHECK(entry_count(want) == 1);
}

TEST_CASE("workers, peers without mappings and peerless gateways want no table") {
  CHECK_FALSE(desired_dnat(*parse_node_state(testing::sample_state("a-n2"))).table);
  auto st = testing::sample_gateway();
  st.peers[0].nat_mappings.clear();
  CHECK_FALSE(desired_dnat(st).table);
  CHECK(plan_dnat(desired_dnat(st), fed::os::DnatState{}).empty());
}

TEST_CASE("from nothing: table, chain, map, elements and rule in one transaction") {
  testing::FakeDnatTable t;
  DnatSync sync(t, kNoVerify);
  auto want = desired_dnat(testing::sample_gateway());
  auto ch = sync.converge(want);
  REQUIRE(ch);
  CHECK(ch->ensure_table);
  CHECK(ch->rewrite_rules);
  CHECK(ch->create_maps == std::vector<std::string>{mapping_map("b")});
  CHECK(ch->added() == 1);
  CHECK(t.state == want);
  CHECK(t.commits == 1);
  auto again = sync.converge(want);
  REQUIRE(again);
  CHECK(again->empty());
  CHECK(t.commits == 1);
  CHECK(t.reads == 1);  // what it committed is what it plans against
}

TEST_CASE("10 000 mappings: adding one is one element; a moved endpoint is removed and added") {
  testing::FakeDnatTable t;
  DnatSync sync(t, kNoVerify);
  auto st = gateway_with_mappings(10000);
  REQUIRE(sync.converge(desired_dnat(st)));
  st.peers[0].nat_mappings.push_back(NatMapping{Ipv4{0xC0A80001u + 20000}, Ipv4{7}});
  auto ch = sync.converge(desired_dnat(st));
  REQUIRE(ch);
  CHECK_FALSE(ch->ensure_table);
  CHECK_FALSE(ch->rewrite_rules);
  CHECK(ch->create_maps.empty());
  CHECK(ch->added() == 1);
  CHECK(ch->removed() == 0);
  st.peers[0].nat_mappings[5].endpoint_ip = Ipv4{99};
  ch = sync.converge(desired_dnat(st));
  REQUIRE(ch);
  CHECK(ch->added() == 1);
  CHECK(ch->removed() == 1);
  CHECK(t.state.maps.at(mapping_map("b")).at(0xC0A80001u + 5) == 99);
  CHECK(entry_count(t.state) == 10001);
  CHECK(t.reads == 1);
}

TEST_CASE("unmapping: elements removed; the last one of a peer takes its map and rule") {
  testing::FakeDnatTable t;
  DnatSync sync(t, kNoVerify);
  auto st = gateway_with_mappings(3);
  REQUIRE(sync.converge(desired_dnat(st)));
  st.peers[0].nat_mappings.pop_back();
  auto ch = sync.converge(desired_dnat(st));
  REQUIRE(ch);
  CHECK(ch->removed() == 1);
  st.peers[0].nat_mappings.clear();
  ch = sync.converge(desired_dnat(st));
  REQUIRE(ch);
  CHECK(ch->delete_table);
  CHECK_FALSE(t.state.table);
}

TEST_CASE("a hand edit moves the generation and is undone at the next check; else no read") {
  testing::FakeDnatTable t;
  auto want = desired_dnat(gateway_with_mappings(5));
  DnatSync sync(t, std::chrono::milliseconds(0));  // checks the generation on every pass
  REQUIRE(sync.converge(want));
  REQUIRE(sync.converge(want));
  CHECK(t.reads == 1);  // the generation did not move: nothing read back
  t.edit().maps.at(mapping_map("b")).erase(0xC0A80003u);  // an element deleted by hand
  t.edit().rules.clear();                                 // and the rule
  auto ch = sync.converge(want);
  REQUIRE(ch);
  CHECK(t.reads == 2);
  CHECK(ch->added() == 1);
  CHECK(ch->rewrite_rules);
  CHECK(t.state == want);

  DnatSync lazy(t, kNoVerify);  // within its period it trusts what it committed
  REQUIRE(lazy.converge(want));
  t.edit().rules.clear();
  auto trusted = lazy.converge(want);
  REQUIRE(trusted);
  CHECK(trusted->empty());
}

TEST_CASE("a table holding something else is rebuilt; a failed transaction makes it read again") {
  testing::FakeDnatTable t;
  t.state.table = true;
  t.state.chain_ok = false;  // a chain of another priority under our name
  t.state.maps["stray"] = {{1, 2}};
  DnatSync sync(t, kNoVerify);
  auto want = desired_dnat(testing::sample_gateway());
  auto ch = sync.converge(want);
  REQUIRE(ch);
  CHECK(ch->delete_table);
  CHECK(ch->ensure_table);
  CHECK(t.state == want);

  // Someone removed the whole table; the agent's next write fails and it reads again.
  t.edit() = {};
  auto st = testing::sample_gateway();
  st.peers[0].nat_mappings.push_back(
      NatMapping{testing::ip("192.168.10.46"), testing::ip("10.0.0.78")});
  CHECK_FALSE(sync.converge(desired_dnat(st)));
  REQUIRE(sync.converge(desired_dnat(st)));
  CHECK(t.state == desired_dnat(st));
  CHECK(t.reads == 2);
}

TEST_CASE("map entries: any order in, sorted by external address, the first of a duplicate kept") {
  auto e = fed::os::DnatEntries::from({{30, 3}, {10, 1}, {20, 2}, {10, 9}});
  REQUIRE(e.size() == 3);
  CHECK(e.begin()->first == 10);
  CHECK(e.at(10) == 1);
  CHECK_FALSE(e.contains(15));
  CHECK(e.emplace(15, 5).second);
  CHECK_FALSE(e.emplace(15, 6).second);  // taken: left as it was
  CHECK(e.at(15) == 5);
  CHECK(e.erase(20) == 1);
  CHECK(e.erase(20) == 0);
  CHECK(e == fed::os::DnatEntries{{15, 5}, {30, 3}, {10, 1}});
  CHECK_THROWS_AS(static_cast<void>(e.at(20)), std::out_of_range);
}

TEST_CASE("one pass with entries added, removed and moved at both ends and between") {
  testing::FakeDnatTable t;
  DnatSync sync(t, kNoVerify);
  auto st = gateway_with_mappings(6);  // 192.168.0.1+i -> i
  REQUIRE(sync.converge(desired_dnat(st)));
  auto& m = st.peers[0].nat_mappings;
  m.erase(m.begin());                                            // the first gone
  m.erase(m.begin() + 2);                                        // one between gone
  m.back().endpoint_ip = Ipv4{77};                               // the last moved
  m.insert(m.begin(), NatMapping{Ipv4{0xC0A80000u}, Ipv4{50}});  // a new first
  m.push_back(NatMapping{Ipv4{0xC0A80001u + 9}, Ipv4{51}});      // a new last
  auto ch = sync.converge(desired_dnat(st));
  REQUIRE(ch);
  CHECK(ch->added() == 3);
  CHECK(ch->removed() == 3);
  CHECK(t.state == desired_dnat(st));
  CHECK(t.state.maps.at(mapping_map("b")).at(0xC0A80001u + 5) == 77);
  CHECK(entry_count(t.state) == 6);
}
