#include "agent/node/fabric/nat_plan.hpp"

#include <doctest/doctest.h>

#include "agent/node/fabric/chain_names.hpp"
#include "agent/node/fabric/node_state_parse.hpp"
#include "tests/unit/agent/node/fabric/fake_kernel.hpp"
#include "tests/unit/agent/node/fabric/net_literals.hpp"
#include "tests/unit/agent/node/fabric/sample_state.hpp"

using namespace fed::fabric;
using fed::net::Cidr;
using fed::os::NatAction;
using fed::os::NatRule;
using fed::os::Negation;
using testing::cidr;

namespace {

NodeNetworkState gateway() {
  auto st = parse_node_state(testing::sample_state("a-n1"));
  REQUIRE(st);
  return *st;
}

fed::Result<fed::os::NatChanges> converge(testing::FakeNatTable& t, const DesiredNat& want) {
  return t.transact([&](const fed::os::NatSnapshot& s) -> fed::Result<fed::os::NatChanges> {
    return plan_nat(want, s);
  });
}

}  // namespace

TEST_CASE("single NAT: NETMAP both ways, SNAT for foreign sources, DNAT per mapping") {
  auto want = desired_nat(gateway());
  const auto& post = want.chains.at(std::string(kPostroutingChain));
  REQUIRE(post.size() == 4);
  CHECK(post[0].src == cidr("10.1.0.0/24"));
  CHECK(post[0].dst == cidr("10.0.0.0/24"));
  CHECK(post[0].action == NatAction::Netmap);
  CHECK(post[0].to_net == cidr("10.3.0.0/24"));
  CHECK(post[1].src_negated == Negation::Yes);
  CHECK(post[1].action == NatAction::Snat);
  CHECK(post[1].to_ip.str() == "10.3.0.1");
  CHECK(post[0].comment == "fed:b");
  const auto& pre = want.chains.at(std::string(kPreroutingChain));
  REQUIRE(pre.size() == 2);
  CHECK(pre[0].src == cidr("10.0.0.0/24"));
  CHECK(pre[0].dst == cidr("10.3.0.0/24"));
  CHECK(pre[0].to_net == cidr("10.1.0.0/24"));
  CHECK(pre[1].action == NatAction::Jump);
  CHECK(pre[1].jump == mapping_chain("b"));
  CHECK(pre[1].dst == cidr("192.168.10.0/24"));
  const auto& map = want.chains.at(mapping_chain("b"));
  REQUIRE(map.size() == 1);
  CHECK(map[0].dst == cidr("192.168.10.45/32"));
  CHECK(map[0].action == NatAction::Dnat);
  CHECK(map[0].to_ip.str() == "10.0.0.77");
  CHECK(want.hooks.at("PREROUTING").jump == kPreroutingChain);
  CHECK(want.hooks.at("POSTROUTING").jump == kPostroutingChain);
}

TEST_CASE("not remapped by the peer: no NETMAP, SNAT to our own first address") {
  auto st = gateway();
  st.peers[0].local_pod_remap.reset();
  st.peers[0].nat_mappings.clear();
  auto want = desired_nat(st);
  const auto& post = want.chains.at(std::string(kPostroutingChain));
  REQUIRE(post.size() == 2);
  CHECK(post[0].action == NatAction::Snat);
  CHECK(post[0].to_ip.str() == "10.1.0.1");
  CHECK(want.chains.at(std::string(kPreroutingChain)).empty());
  CHECK(want.chains.size() == 2);
}

TEST_CASE("worker nodes and peerless gateways own no nat rules") {
  CHECK(desired_nat(*parse_node_state(testing::sample_state("a-n2"))).chains.empty());
  auto st = gateway();
  st.peers.clear();
  CHECK(desired_nat(st).hooks.empty());
}

TEST_CASE("one transaction converges; the next plans nothing") {
  testing::FakeNatTable t;
  NatRule foreign;
  foreign.action = NatAction::Return;
  foreign.comment = "cni";
  t.chains["POSTROUTING"] = {foreign};
  auto want = desired_nat(gateway());
  auto first = converge(t, want);
  REQUIRE(first);
  CHECK(first->create_chains.size() == 3);
  CHECK(t.chains["POSTROUTING"].size() == 2);
  CHECK(t.chains["POSTROUTING"][0].jump == kPostroutingChain);
  CHECK(t.chains["POSTROUTING"][1] == foreign);
  auto second = converge(t, want);
  REQUIRE(second);
  CHECK(second->empty());
  CHECK(t.commits == 1);
}

TEST_CASE("drift is repaired: jump moved, duplicated, junk rules, stale chain, lost mapping") {
  testing::FakeNatTable t;
  auto want = desired_nat(gateway());
  REQUIRE(converge(t, want));
  NatRule junk;
  junk.action = NatAction::Other;
  junk.other = "target ACCEPT with unmodelled matches";
  NatRule foreign;
  foreign.action = NatAction::Return;
  auto& pre = t.chains["PREROUTING"];
  pre.insert(pre.begin(), foreign);            // our jump no longer first
  pre.push_back(want.hooks.at("PREROUTING"));  // and duplicated
  t.chains[mapping_chain("b")].push_back(junk);
  t.chains[mapping_chain("b")].erase(t.chains[mapping_chain("b")].begin());  // mapping lost
  t.chains["FED-MAP-gone-00000000"] = {junk};
  t.chains[std::string(kPreroutingChain)].push_back(
      want.chains.at(std::string(kPreroutingChain))[0]);
  REQUIRE(converge(t, want));
  CHECK(t.chains["PREROUTING"].size() == 2);
  CHECK(t.chains["PREROUTING"][0] == want.hooks.at("PREROUTING"));
  CHECK(t.chains["PREROUTING"][1] == foreign);
  CHECK_FALSE(t.chains.contains("FED-MAP-gone-00000000"));
  for (const auto& [name, rules] : want.chains) CHECK(t.chains.at(name) == rules);
  auto again = converge(t, want);
  CHECK(again->empty());
}

TEST_CASE("planning against nothing desired removes every chain and jump, and only those") {
  testing::FakeNatTable t;
  NatRule foreign;
  foreign.action = NatAction::Return;
  t.chains["POSTROUTING"] = {foreign};
  t.chains["OTHER-CHAIN"] = {foreign};
  REQUIRE(converge(t, desired_nat(gateway())));
  REQUIRE(converge(t, DesiredNat{}));
  CHECK(t.chains["POSTROUTING"] == std::vector<NatRule>{foreign});
  CHECK(t.chains["PREROUTING"].empty());
  CHECK(t.chains.contains("OTHER-CHAIN"));
  for (const auto& [name, rules] : t.chains) CHECK_FALSE(name.starts_with("FED-"));
}

TEST_CASE("10 000 mappings: adding one plans one insert") {
  auto st = gateway();
  st.external_cidr = cidr("192.168.0.0/16");
  auto& m = st.peers[0].nat_mappings;
  m.clear();
  for (std::uint32_t i = 0; i < 10000; ++i) {
    m.push_back(NatMapping{fed::net::Ipv4{0xC0A80000u + 1 + i}, fed::net::Ipv4{i}});
  }
  testing::FakeNatTable t;
  REQUIRE(converge(t, desired_nat(st)));
  m.push_back(NatMapping{fed::net::Ipv4{0xC0A80000u + 20000}, fed::net::Ipv4{7}});
  auto ch = converge(t, desired_nat(st));
  REQUIRE(ch);
  REQUIRE(ch->edits.size() == 1);
  REQUIRE(ch->edits[0].insert.size() == 1);
  CHECK(ch->edits[0].insert[0].first == 10000);
  CHECK(ch->edits[0].delete_positions.empty());
}

TEST_CASE(
    "a rule deleted from the middle comes back in its place; a reordered chain is rewritten") {
  auto st = gateway();
  for (std::uint32_t i = 1; i <= 5; ++i) {
    st.peers[0].nat_mappings.push_back(NatMapping{fed::net::Ipv4{0xC0A80A00u + 100 + i}, {}});
  }
  auto want = desired_nat(st);
  testing::FakeNatTable t;
  REQUIRE(converge(t, want));
  auto& map = t.chains[mapping_chain("b")];
  REQUIRE(map.size() == 6);
  map.erase(map.begin() + 3);
  auto ch = converge(t, want);
  REQUIRE(ch);
  CHECK(ch->edits.size() == 1);
  CHECK(t.chains[mapping_chain("b")] == want.chains.at(mapping_chain("b")));
  std::swap(map[1], map[4]);
  REQUIRE(converge(t, want));
  CHECK(t.chains[mapping_chain("b")] == want.chains.at(mapping_chain("b")));
  CHECK(converge(t, want)->empty());
}
