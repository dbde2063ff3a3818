// Acceptance 4-6 of issue 4: kill -9 mid-reconcile and restart, hand-made damage repaired within
// one resync period, invalid input refused with the kernel untouched.
#include <signal.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <thread>

#include <doctest/doctest.h>

#include "agent/node/fabric/chain_names.hpp"
#include "agent/node/os/linux/netlink_link_manager.hpp"
#include "agent/node/os/linux/netns_scope.hpp"
#include "tests/netns/agent/node/fabric/federation.hpp"

using namespace fed::fabric::netns_test;
using namespace std::chrono_literals;

namespace {

// Clusters A (10.1.0.0/24) and B (10.2.0.0/24), a worker pod each.
void two_clusters(Federation& fed) {
  fed.add_cluster(cluster("a", 1, "10.1.0", "10.129.0.0/16", {{"pa2", 2, "10.1.0.140"}}));
  fed.add_cluster(cluster("b", 2, "10.2.0", "10.130.0.0/16", {{"pb2", 2, "10.2.0.140"}}));
}

// A-B peered, B remapping A to 10.9.1.0/24; A's gateway holds `mappings` ExternalCIDR mappings
// toward B, which makes a pass take a while.
void peer_them(Federation& fed, int mappings) {
  PeerSpec b{"b", "10.2.0.0/24", "10.130.0.0/16", "10.9.1.0/24", "", {}};
  for (int i = 0; i < mappings; ++i) {
    b.mappings.emplace_back("10.129." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1),
                            "10.2.0.140");
  }
  fed.set_peers("a", {b});
  fed.set_peers("b", {{"a", "10.9.1.0/24", "10.129.0.0/16", "", "", {}}});
}

// `snapshot` with interface indexes blanked: a re-created overlay device gets a new index,
// which is not a difference in rules, routes or links.
std::string without_ifindex(const std::string& snapshot) {
  return std::regex_replace(snapshot, std::regex("(^|\n)[0-9]+: "), "$1N: ");
}

// `snapshot` with the policy rules sorted: a re-added rule lands after its peers of the same
// priority, and since every rule of the agent looks up the same table their order is moot.
std::string rules_sorted(const std::string& snapshot) {
  auto from = snapshot.find("--- rules\n"), to = snapshot.find("--- routes\n");
  std::vector<std::string> lines;
  std::istringstream in(snapshot.substr(from, to - from));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  std::string out = snapshot.substr(0, from);
  for (const auto& l : lines) out += l + "\n";
  return out + snapshot.substr(to);
}

// True once `pred` holds, polling every 200 µs for at most `timeout`.
template <typename Pred>
bool poll_until(Pred pred, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(200us);
  }
  return false;
}

}  // namespace

TEST_CASE("kill -9 mid-reconcile, restart: same rules and routes, no duplicates") {
  require_prerequisites();
  Lab lab;
  Federation fed(lab);
  two_clusters(fed);
  auto baseline = lab.snapshot_all();
  peer_them(fed, 3000);
  const std::string a1 = lab.ns("a1");
  for (const auto& n : fed.nodes())
    REQUIRE(fed.datapath(n, "--once --state-file " + fed.state_path(n)).code == 0);
  const std::string reference = without_ifindex(lab.snapshot(a1));
  CHECK(reference.find("10.129.11.250 : 10.2.0.140") != std::string::npos);

  // Kill at different points of a fresh install: as soon as the overlay device appears, after
  // a delay, and (last rounds) when the agent already converged and restarts over its own state.
  int mid_pass = 0;
  for (int round = 0; round < 8; ++round) {
    if (round < 6) REQUIRE(fed.datapath("a1", "--uninstall").code == 0);
    auto pid = lab.spawn("a1", datapath_binary() + " --state-file " + fed.state_path("a1"),
                         fed.agent_log("a1"));
    if (round % 2 == 0) {
      auto scope = fed::os::NetnsScope::enter_named(a1);
      REQUIRE(scope);
      auto links = fed::os::NetlinkLinkManager::create();
      REQUIRE(links);
      poll_until([&] { return (*links)->link_exists("fed.vxlan").value_or(false); }, 5s);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * round));
    }
    lab.stop(pid, SIGKILL);
    auto partial = without_ifindex(lab.snapshot(a1));
    if (partial != reference && partial != without_ifindex(baseline.at(a1))) ++mid_pass;
    auto restart = fed.datapath("a1", "--once --state-file " + fed.state_path("a1"));
    INFO("round " << round << ": " << restart.out);
    REQUIRE(restart.code == 0);
    auto after = without_ifindex(lab.snapshot(a1));
    const std::string diff = lab.diff(reference, after);
    INFO(diff);
    CHECK(after == reference);
  }
  MESSAGE(mid_pass << " of 8 kills left a partly applied datapath");
  CHECK(mid_pass > 0);
  fed.check_uninstall_restores(baseline);
}

TEST_CASE("hand-deleted rules, routes and jumps come back within one resync period") {
  require_prerequisites();
  Lab lab;
  Federation fed(lab);
  two_clusters(fed);
  auto baseline = lab.snapshot_all();
  peer_them(fed, 100);
  fed.start(1s);
  fed.wait_converged(1);
  CHECK(fed.probe("pa2", "10.2.0.140", 3s) == "pb2 saw-src=10.9.1.140 got=from-pa2");
  const std::string a1 = lab.ns("a1"), a2 = lab.ns("a2");
  const std::string ref1 = rules_sorted(lab.snapshot(a1)), ref2 = rules_sorted(lab.snapshot(a2));

  const std::string map = fed::fabric::mapping_map("b");
  lab.run("a1", "nft delete element ip fed " + map + " { 10.129.0.7 }");
  lab.run("a1", "nft flush chain ip fed prerouting");
  lab.run("a1", "iptables-legacy -t nat -D PREROUTING 1");
  lab.run("a1", "iptables-legacy -t nat -I FED-POSTROUTING 1 -d 10.77.0.0/16 -j RETURN");
  lab.run("a1", "ip route del 10.2.0.0/24 table 18960");
  lab.run("a1", "ip rule del to 10.130.0.0/16 lookup 18960 pref 1960");
  lab.run("a2", "ip rule add to 10.77.0.0/16 lookup 18960 pref 1960");  // stale, in our marks
  lab.run("a2", "ip route add 10.77.0.0/16 dev lan0 table 18960");
  lab.run("a2", "ip route del 10.130.0.0/16 table 18960");
  CHECK(lab.snapshot(a1) != ref1);
  auto start = std::chrono::steady_clock::now();
  bool healed = poll_until(
      [&] {
        return rules_sorted(lab.snapshot(a1)) == ref1 && rules_sorted(lab.snapshot(a2)) == ref2;
      },
      3s);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  MESSAGE("repaired in " << took.count() << " ms (resync period 1000 ms)");
  const std::string diff = lab.diff(ref1, rules_sorted(lab.snapshot(a1))) +
                           lab.diff(ref2, rules_sorted(lab.snapshot(a2)));
  INFO(diff);
  CHECK(healed);
  CHECK(took <= 1500ms);  // one period plus the pass and the snapshot polling
  CHECK(fed.probe("pa2", "10.2.0.140", 3s) == "pb2 saw-src=10.9.1.140 got=from-pa2");
  fed.check_uninstall_restores(baseline);
}

TEST_CASE("upgrade: an older agent's FED-MAP- chain gives way to the nftables map, nothing lost") {
  require_prerequisites();
  Lab lab;
  Federation fed(lab);
  two_clusters(fed);
  auto baseline = lab.snapshot_all();
  peer_them(fed, 2);
  const std::string state = "--once --state-file " + fed.state_path("a1");
  REQUIRE(fed.datapath("a1", state).code == 0);
  const std::string a1 = lab.ns("a1");
  const std::string reference = without_ifindex(lab.snapshot(a1));
  REQUIRE(fed.datapath("a1", "--uninstall").code == 0);

  // What releases before the maps left on a gateway with those two mappings: the per-peer rules
  // of today, plus a FED-MAP- chain of DNAT rules and its jump from FED-PREROUTING.
  REQUIRE(fed.datapath("a1", state).code == 0);
  lab.run("a1", "nft delete table ip fed");
  const std::string chain = "FED-MAP-b-e70c2de5";
  lab.run("a1", "iptables-legacy -t nat -N " + chain);
  lab.run("a1", "iptables-legacy -t nat -A FED-PREROUTING -s 10.2.0.0/24 -d 10.129.0.0/16 -j " +
                    chain + " -m comment --comment fed:b");
  for (const char* ip : {"10.129.0.1", "10.129.0.2"}) {
    lab.run("a1", "iptables-legacy -t nat -A " + chain + " -d " + std::string(ip) +
                      "/32 -j DNAT --to-destination 10.2.0.140");
  }
  CHECK(without_ifindex(lab.snapshot(a1)) != reference);
  auto upgraded = fed.datapath("a1", state);
  INFO(upgraded.out);
  REQUIRE(upgraded.code == 0);
  const std::string after = without_ifindex(lab.snapshot(a1));
  INFO(lab.diff(reference, after));
  CHECK(after == reference);
  CHECK(after.find("FED-MAP") == std::string::npos);
  CHECK(after.find("10.129.0.2 : 10.2.0.140") != std::string::npos);
  fed.check_uninstall_restores(baseline);
}

TEST_CASE("invalid input: a clear error naming the field, and the kernel left as it was") {
  require_prerequisites();
  Lab lab;
  Federation fed(lab);
  two_clusters(fed);
  auto baseline = lab.snapshot_all();
  PeerSpec b{"b", "10.2.0.0/24", "10.130.0.0/16", "", "", {}};
  PeerSpec c{"c", "10.2.0.0/25", "10.131.0.0/16", "", "", {}};
  PeerSpec remap{"b", "10.2.0.0/24", "10.130.0.0/16", "10.9.0.0/23", "", {}};
  fed.set_peers("b", {});  // so that cluster c exists for the overlap document
  struct Bad {
    std::string name, doc, field;
  };
  std::string good = fed.state_yaml("a", 1, {b});
  std::string bad_cidr = good;
  bad_cidr.replace(bad_cidr.find("10.2.0.0/24"), 11, "10.2.0.0/33");
  fed.add_cluster(cluster("c", 3, "10.3.0", "10.131.0.0/16", {}));
  std::vector<Bad> bad = {
      {"bad CIDR", bad_cidr, "peers[0].podCIDR"},
      {"overlapping peers", fed.state_yaml("a", 1, {b, c}), "peers[1] (clusterID \"c\").podCIDR"},
      {"remap with another prefix length", fed.state_yaml("a", 1, {remap}), "localNATPodCIDR"},
  };
  baseline = lab.snapshot_all();  // c's namespaces are part of the picture now

  auto check_refused = [&](const std::map<std::string, std::string>& before) {
    for (const auto& x : bad) {
      auto path = lab.write_file("bad.yaml", x.doc);
      auto r = fed.datapath("a1", "--once --state-file " + path);
      INFO(x.name << ": " << r.out);
      CHECK(r.code == 2);
      CHECK(r.out.find(x.field) != std::string::npos);
      CHECK(lab.snapshot_all() == before);
    }
  };
  check_refused(baseline);

  // Over an installed datapath, and with a running agent that gets a bad update.
  auto path = lab.write_file("a1-live.yaml", good);
  REQUIRE(fed.datapath("a1", "--once --state-file " + path).code == 0);
  auto installed = lab.snapshot_all();
  check_refused(installed);
  auto pid = lab.spawn("a1", datapath_binary() + " -v --resync-period 1s --state-file " + path,
                       fed.agent_log("a1"));
  REQUIRE(wait_for_text(fed.agent_log("a1"), "pass converged", 1, 10s));
  lab.write_file("a1-live.yaml", bad[1].doc);
  REQUIRE(wait_for_text(fed.agent_log("a1"), "kernel left as it was", 1, 10s));
  CHECK(lab.snapshot_all() == installed);
  lab.stop(pid, SIGTERM);
  REQUIRE(fed.datapath("a1", "--uninstall").code == 0);
  CHECK(lab.snapshot_all() == baseline);
}
