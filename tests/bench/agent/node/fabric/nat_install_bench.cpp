// Benchmarks of the gateway's DNAT programming (issues 4 and 27): installing 1 000 and 10 000
// mappings with the agent's one nftables transaction vs the legacy rules (one DNAT rule each in
// a FED-MAP- chain, as releases before the maps wrote them) by one iptables-legacy-restore and by
// one iptables-legacy call per rule; adding one mapping to N until it is live. Figures go to
// docs/BENCHMARKS.md ("Node datapath").
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include <doctest/doctest.h>

#include "agent/node/fabric/chain_names.hpp"
#include "agent/node/fabric/dnat_plan.hpp"
#include "agent/node/fabric/nat_plan.hpp"
#include "agent/node/fabric/node_reconciler.hpp"
#include "agent/node/fabric/uninstall.hpp"
#include "agent/node/os/linux/iptc_nat_table.hpp"
#include "agent/node/os/linux/netlink_link_manager.hpp"
#include "agent/node/os/linux/netlink_route_table.hpp"
#include "agent/node/os/linux/netns_scope.hpp"
#include "agent/node/os/linux/nft_dnat_table.hpp"
#include "shared/util/percentile.hpp"
#include "tests/bench/agent/node/fabric/bench_util.hpp"

using namespace fed::fabric;
using namespace fed::fabric::bench;
using Clock = std::chrono::steady_clock;

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoi(v) : fallback;
}

std::vector<std::pair<std::string, std::vector<fed::os::NatRule>>> chains_of(const DesiredNat& d) {
  return {d.chains.begin(), d.chains.end()};
}

std::vector<std::pair<std::string, fed::os::NatRule>> hooks_of(const DesiredNat& d) {
  return {d.hooks.begin(), d.hooks.end()};
}

// The rules releases before the nftables maps wrote for `state`'s mappings: a jump from
// PREROUTING to FED-MAP-b and one DNAT rule per mapping there.
DesiredNat legacy_dnat(const NodeNetworkState& state) {
  DesiredNat out;
  const auto& peer = state.peers.at(0);
  auto& rules = out.chains["FED-MAP-b"];
  for (const auto& m : peer.nat_mappings) {
    fed::os::NatRule r;
    r.dst = fed::net::Cidr::host(m.external_ip);
    r.action = fed::os::NatAction::Dnat;
    r.to_ip = m.endpoint_ip;
    rules.push_back(r);
  }
  fed::os::NatRule jump;
  jump.src = peer.pod_cidr;
  jump.dst = state.external_view_of(peer);
  jump.action = fed::os::NatAction::Jump;
  jump.jump = "FED-MAP-b";
  out.hooks["PREROUTING"] = jump;
  return out;
}

double agent_install(const fed::os::DnatState& want) {
  TempNs ns;
  auto scope = fed::os::NetnsScope::enter_named(ns.name());
  REQUIRE(scope);
  fed::os::NftDnatTable dnat;
  auto t0 = Clock::now();
  auto r = dnat.apply(plan_dnat(want, fed::os::DnatState{}));
  auto took = ms(Clock::now() - t0);
  REQUIRE(r);
  auto back = dnat.read();
  REQUIRE(back);
  CHECK(*back == want);
  return took;
}

double restore_install(const DesiredNat& want) {
  TempNs ns;
  std::string path = "/tmp/" + ns.name() + ".restore";
  std::ofstream(path) << restore_document(chains_of(want), hooks_of(want));
  auto scope = fed::os::NetnsScope::enter_named(ns.name());
  REQUIRE(scope);
  auto t0 = Clock::now();
  int rc = run_here({"iptables-legacy-restore", "--noflush"}, path);
  auto took = ms(Clock::now() - t0);
  std::remove(path.c_str());
  REQUIRE(rc == 0);
  return took;
}

double per_rule_install(const DesiredNat& want) {
  TempNs ns;
  auto scope = fed::os::NetnsScope::enter_named(ns.name());
  REQUIRE(scope);
  auto call = [](const std::string& args) {
    std::vector<std::string> argv{"iptables-legacy", "-t", "nat"};
    std::string word;
    for (char c : args + " ") {
      if (c == ' ') {
        if (!word.empty()) argv.push_back(word);
        word.clear();
      } else {
        word.push_back(c);
      }
    }
    REQUIRE(run_here(argv) == 0);
  };
  auto t0 = Clock::now();
  for (const auto& [name, rules] : want.chains) call("-N " + name);
  for (const auto& [name, rules] : want.chains) {
    for (const auto& r : rules) call("-A " + name + " " + iptables_args(r));
  }
  for (const auto& [hook, rule] : want.hooks) call("-I " + hook + " 1 " + iptables_args(rule));
  return ms(Clock::now() - t0);
}

double median3(const std::function<double()>& f) {
  std::vector<double> v{f(), f(), f()};
  return fed::util::percentile(v, 0.5);
}

}  // namespace

TEST_CASE("install 1 000 and 10 000 DNAT mappings: batched commit vs restore vs per rule") {
  REQUIRE(::geteuid() == 0);
  for (int n : {1000, 10000}) {
    auto state = gateway_state(n);
    auto want = legacy_dnat(state);
    std::size_t total = rule_count(want);
    double agent = median3([&] { return agent_install(desired_dnat(state)); });
    double restore = median3([&] { return restore_install(want); });
    MESSAGE("install " << n << " mappings: agent's nftables transaction " << agent
                       << " ms; legacy rules (" << total << ") by iptables-legacy-restore "
                       << restore << " ms, ratio " << agent / restore << " (target <= 1.5)");
    bool slow = n <= 1000 || env_int("FED_BENCH_PER_RULE_10K", 0) != 0;
    if (slow) {
      double per_rule = per_rule_install(want);
      MESSAGE("install " << n << " mappings: one iptables-legacy call per rule " << per_rule
                         << " ms (" << per_rule / static_cast<double>(total) << " ms/rule)");
    }
  }
}

TEST_CASE("add one mapping to 10 000: time until the rule is live") {
  REQUIRE(::geteuid() == 0);
  // Issue 27's table sizes: FED_BENCH_MAPPINGS=30000 for the largest.
  const int installed = env_int("FED_BENCH_MAPPINGS", 10000);
  TempNs ns;
  std::system(("ip -n " + ns.name() + " link add wan0 type veth peer name wan1 && ip -n " +
               ns.name() + " addr add 203.0.113.1/24 dev wan0 && ip -n " + ns.name() +
               " link set wan0 up && ip -n " + ns.name() + " link set wan1 up")
                  .c_str());
  auto scope = fed::os::NetnsScope::enter_named(ns.name());
  REQUIRE(scope);
  DatapathConfig config;
  auto routes = fed::os::NetlinkRouteTable::create(config.route_table, config.rule_priority);
  auto links = fed::os::NetlinkLinkManager::create();
  REQUIRE(routes);
  REQUIRE(links);
  fed::os::IptcNatTable nat;
  fed::os::NftDnatTable dnat;
  struct Src final : NodeStateSource {
    fed::Result<NodeNetworkState> load() override { return state; }
    NodeNetworkState state;
  } src;
  src.state = gateway_state(installed);
  NodeReconciler rec(DatapathDeps{**routes, **links, nat, dnat}, src, config,
                     std::chrono::seconds(30), nullptr);
  REQUIRE(rec.converge(src.state));
  const int rounds = env_int("FED_BENCH_ROUNDS", 200);
  std::vector<double> pass, dnat_only;
  auto& maps = src.state.peers[0].nat_mappings;
  for (int i = 0; i < rounds; ++i) {
    maps.push_back(NatMapping{fed::net::Ipv4{0x0A810000u + static_cast<std::uint32_t>(i)},
                              *fed::net::Ipv4::parse("10.2.0.9")});
    auto t0 = Clock::now();
    REQUIRE(rec.converge(src.state));  // returns after the commit: the rule is live
    pass.push_back(ms(Clock::now() - t0));
  }
  // The pass a NatMapping-only change gets (node_runner.cpp): loading aside, the maps alone.
  std::vector<double> mappings_pass;
  for (int i = 0; i < rounds; ++i) {
    maps.push_back(NatMapping{fed::net::Ipv4{0x0A818000u + static_cast<std::uint32_t>(i)},
                              *fed::net::Ipv4::parse("10.2.0.9")});
    auto t0 = Clock::now();
    REQUIRE(rec.reconcile_mappings());
    mappings_pass.push_back(ms(Clock::now() - t0));
  }
  for (int i = 0; i < rounds; ++i) {
    maps.push_back(NatMapping{fed::net::Ipv4{0x0A820000u + static_cast<std::uint32_t>(i)},
                              *fed::net::Ipv4::parse("10.2.0.9")});
    fed::os::DnatChanges one;
    one.elements.push_back(
        {mapping_map("b"), {}, {{maps.back().external_ip.value, maps.back().endpoint_ip.value}}});
    auto t0 = Clock::now();
    REQUIRE(dnat.apply(one));
    dnat_only.push_back(ms(Clock::now() - t0));
  }
  MESSAGE("add 1 mapping to " << installed << " (" << rounds << " rounds): full reconcile pass p50 "
                              << fed::util::percentile(pass, 0.5) << " ms, p99 "
                              << fed::util::percentile(pass, 0.99)
                              << " ms; the mappings-only pass p50 "
                              << fed::util::percentile(mappings_pass, 0.5) << " ms, p99 "
                              << fed::util::percentile(mappings_pass, 0.99)
                              << " ms; its nftables transaction alone p50 "
                              << fed::util::percentile(dnat_only, 0.5) << " ms, p99 "
                              << fed::util::percentile(dnat_only, 0.99)
                              << " ms (target p99 <= 50 ms)");
  REQUIRE(uninstall_datapath(DatapathDeps{**routes, **links, nat, dnat}, config));
}
