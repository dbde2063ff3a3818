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

fed::Result<fed::os::NatChanges> converge(testing::FakeNatTable& t, const DesiredNat& want) {
  return t.transact([&](const fed::os::NatSnapshot& s) -> fed::Result<fed::os::NatChanges> {
    return plan_nat(want, s);
  });
}

}  // namespace

TEST_CASE("single NAT: NETMAP both ways, SNAT for foreign sources; mappings are not here") {
  auto want = desired_nat(testing::sample_gateway());
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
  REQUIRE(pre.size() == 1);  // the ExternalCIDR mappings are nftables maps (dnat_plan_test)
  CHECK(pre[0].src == cidr("10.0.0.0/24"));
  CHECK(pre[0].dst == cidr("10.3.0.0/24"));
  CHECK(pre[0].to_net == cidr("10.1.0.0/24"));
  CHECK(want.chains.size() == 2);
  CHECK(want.hooks.at("PREROUTING").jump == kPreroutingChain);
  CHECK(want.hooks.at("POSTROUTING").jump == kPostroutingChain);
}

TEST_CASE("not remapped by the peer: no NETMAP, SNAT to our own first address") {
  auto st = testing::sample_gateway();
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
  auto st = testing::sample_gateway();
  st.peers.clear();
  CHECK(desired_nat(st).hooks.empty());
}

TEST_CASE("one transaction converges; the next plans nothing") {
  testing::FakeNatTable t;
  NatRule foreign;
  foreign.action = NatAction::Return;
  foreign.comment = "cni";
  t.chains["POSTROUTING"] = {foreign};
  auto want = desired_nat(testing::sample_gateway());
  auto first = converge(t, want);
  REQUIRE(first);
  CHECK(first->create_chains.size() == 2);
  CHECK(t.chains["POSTROUTING"].size() == 2);
  CHECK(t.chains["POSTROUTING"][0].jump == kPostroutingChain);
  CHECK(t.chains["POSTROUTING"][1] == foreign);
  auto second = converge(t, want);
  REQUIRE(second);
  CHECK(second->empty());
  CHECK(t.commits == 1);
}

TEST_CASE("drift is repaired: jump moved, duplicated, junk rules, stale chains, lost rule") {
  testing::FakeNatTable t;
  auto want = desired_nat(testing::sample_gateway());
  REQUIRE(converge(t, want));
  NatRule junk;
  junk.action = NatAction::Other;
  junk.other = "target ACCEPT with unmodelled matches";
  NatRule foreign;
  foreign.action = NatAction::Return;
  auto& pre = t.chains["PREROUTING"];
  pre.insert(pre.begin(), foreign);            // our jump no longer first
  pre.push_back(want.hooks.at("PREROUTING"));  // and duplicated
  auto& post = t.chains[std::string(kPostroutingChain)];
  post.push_back(junk);
  post.erase(post.begin());  // a rule lost
  // A mapping chain of a release before the nftables maps: an upgrade deletes it.
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
  REQUIRE(converge(t, desired_nat(testing::sample_gateway())));
  REQUIRE(converge(t, DesiredNat{}));
  CHECK(t.chains["POSTROUTING"] == std::vector<NatRule>{foreign});
  CHECK(t.chains["PREROUTING"].empty());
  CHECK(t.chains.contains("OTHER-CHAIN"));
  for (const auto& [name, rules] : t.chains) CHECK_FALSE(name.starts_with("FED-"));
}

TEST_CASE(
    "a rule deleted from the middle comes back in its place; a reordered chain is rewritten") {
  auto want = desired_nat(testing::sample_gateway());
  const std::string name(kPostroutingChain);
  testing::FakeNatTable t;
  REQUIRE(converge(t, want));
  auto& chain = t.chains[name];
  REQUIRE(chain.size() == 4);
  chain.erase(chain.begin() + 2);
  auto ch = converge(t, want);
  REQUIRE(ch);
  CHECK(ch->edits.size() == 1);
  CHECK(t.chains[name] == want.chains.at(name));
  std::swap(chain[0], chain[3]);
  REQUIRE(converge(t, want));
  CHECK(t.chains[name] == want.chains.at(name));
  CHECK(converge(t, want)->empty());
}
