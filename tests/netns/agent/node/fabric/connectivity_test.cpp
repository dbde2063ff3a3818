// Acceptance 1-3 and 5 of issue 4: real TCP connections between pod namespaces across three
// emulated clusters, through the datapath that real fed-node-datapath processes install; each
// scenario ends with --uninstall leaving every namespace byte-identical.
#include <doctest/doctest.h>

#include "tests/netns/agent/node/fabric/federation.hpp"

using namespace fed::fabric::netns_test;
using namespace std::chrono_literals;

namespace {

// "<pod> saw-src=<ip> got=from-<client>": what a server answers.
std::string reply(const std::string& server, const std::string& src, const std::string& client) {
  return server + " saw-src=" + src + " got=from-" + client;
}

}  // namespace

TEST_CASE("distinct PodCIDRs: a pod on A's worker and a pod on B's worker reach each other") {
  require_prerequisites();
  Lab lab;
  Federation fed(lab);
  fed.add_cluster(cluster("a", 1, "10.1.0", "192.168.1.0/24", {{"pa2", 2, "10.1.0.140"}}));
  fed.add_cluster(cluster("b", 2, "10.2.0", "192.168.2.0/24", {{"pb2", 2, "10.2.0.140"}}));
  auto baseline = lab.snapshot_all();
  fed.set_peers("a", {{"b", "10.2.0.0/24", "192.168.2.0/24", "", "", {}}});
  fed.set_peers("b", {{"a", "10.1.0.0/24", "192.168.1.0/24", "", "", {}}});
  fed.start(30s);
  fed.wait_converged(1);

  CHECK(fed.probe("pa2", "10.2.0.140", 3s) == reply("pb2", "10.1.0.140", "pa2"));
  CHECK(fed.probe("pb2", "10.1.0.140", 3s) == reply("pa2", "10.2.0.140", "pb2"));

  fed.check_uninstall_restores(baseline);
  CHECK(fed.probe("pa2", "10.2.0.140") == "connect-failed");
}

TEST_CASE("single NAT and hub-and-spoke with the thesis' colliding IP (spec 002 S1/S2)") {
  require_prerequisites();
  Lab lab;
  Federation fed(lab);
  // A and C share 10.1.0.0/24, so hub B sees A remapped to 10.3.0.0/24 (single NAT on A-B).
  // B's pod pb1 has 10.0.0.5, the address B's old reflection would have given C's pc1 (10.1.0.5).
  fed.add_cluster(cluster("a", 1, "10.1.0", "192.168.1.0/24", {{"pa2", 2, "10.1.0.140"}}));
  fed.add_cluster(cluster("b", 2, "10.0.0", "192.168.0.0/24",
                          {{"pb1", 1, "10.0.0.5"}, {"pb2", 2, "10.0.0.140"}}));
  fed.add_cluster(cluster("c", 3, "10.1.0", "192.168.2.0/24", {{"pc1", 1, "10.1.0.5"}}));
  auto baseline = lab.snapshot_all();
  fed.set_peers("a", {{"b", "10.0.0.0/24", "192.168.0.0/24", "10.3.0.0/24", "", {}}});
  // B reflects pc1 to A through its ExternalCIDR: 192.168.0.45 -> 10.1.0.5.
  fed.set_peers("b",
                {{"a", "10.3.0.0/24", "192.168.1.0/24", "", "", {{"192.168.0.45", "10.1.0.5"}}},
                 {"c", "10.1.0.0/24", "192.168.2.0/24", "", "", {}}});
  fed.set_peers("c", {{"b", "10.0.0.0/24", "192.168.0.0/24", "", "", {}}});
  fed.start(30s);
  fed.wait_converged(1);

  SUBCASE("single NAT both ways, from and to worker nodes") {
    CHECK(fed.probe("pa2", "10.0.0.5", 3s) == reply("pb1", "10.3.0.140", "pa2"));
    CHECK(fed.probe("pb2", "10.3.0.140", 3s) == reply("pa2", "10.0.0.140", "pb2"));
    CHECK(fed.probe("pb1", "10.1.0.5", 3s) == reply("pc1", "10.0.0.5", "pb1"));
  }
  SUBCASE("A reaches C only through B's ExternalCIDR DNAT, never B's pod with the same suffix") {
    CHECK(fed.probe("pa2", "192.168.0.45", 3s) == reply("pc1", "10.0.0.1", "pa2"));
    CHECK(fed.probe("pa2", "192.168.0.46") == "connect-failed");  // not mapped
    auto table = lab.run("b1", "nft list table ip fed");
    CHECK(table.find("192.168.0.45 : 10.1.0.5") != std::string::npos);
    CHECK(table.find("ip saddr 10.3.0.0/24 ip daddr 192.168.0.0/24 dnat to ip daddr map") !=
          std::string::npos);
  }
  fed.check_uninstall_restores(baseline);
}

TEST_CASE("three clusters share one PodCIDR: double NAT in a full mesh, then hub-and-spoke") {
  require_prerequisites();
  Lab lab;
  Federation fed(lab);
  // Every cluster: pods 10.244.0.0/24, ExternalCIDR 10.245.0.0/24, a pod 10.244.0.140 on its
  // worker and 10.244.0.10 on its gateway. In cluster i, cluster j's pods are 10.5i.j.0/24 and
  // its ExternalCIDR 10.6i.j.0/24.
  const char* ids[] = {"", "a", "b", "c"};
  for (int i = 1; i <= 3; ++i) {
    std::string id = ids[i];
    fed.add_cluster(
        cluster(id, i, "10.244.0", "10.245.0.0/24",
                {{"p" + id + "1", 1, "10.244.0.10"}, {"p" + id + "2", 2, "10.244.0.140"}}));
  }
  auto pod_view = [](int i, int j) { return "10.5" + std::to_string(i) + "." + std::to_string(j); };
  auto ext_view = [](int i, int j) { return "10.6" + std::to_string(i) + "." + std::to_string(j); };
  auto peer = [&](int i, int j) {
    return PeerSpec{ids[j],
                    pod_view(i, j) + ".0/24",
                    ext_view(i, j) + ".0/24",
                    pod_view(j, i) + ".0/24",
                    ext_view(j, i) + ".0/24",
                    {}};
  };
  auto baseline = lab.snapshot_all();
  for (int i = 1; i <= 3; ++i) {
    std::vector<PeerSpec> peers;
    for (int j = 1; j <= 3; ++j) {
      if (j != i) peers.push_back(peer(i, j));
    }
    fed.set_peers(ids[i], peers);
  }
  fed.start(30s);
  fed.wait_converged(1);

  // Every pod reaches every pod of the other clusters and sees its peer's address as its own
  // cluster maps it; the local pod with the same IP never answers.
  for (int i = 1; i <= 3; ++i) {
    for (int j = 1; j <= 3; ++j) {
      if (i == j) continue;
      for (const char* from : {"1", "2"}) {
        for (const char* to : {"1", "2"}) {
          std::string client = "p" + std::string(ids[i]) + from;
          std::string server = "p" + std::string(ids[j]) + to;
          std::string host = std::string(to) == "1" ? ".10" : ".140";
          std::string seen = pod_view(j, i) + (std::string(from) == "1" ? ".10" : ".140");
          CHECK(fed.probe(client, pod_view(i, j) + host, 3s) == reply(server, seen, client));
        }
      }
    }
  }

  // Hub-and-spoke: drop A-C. B maps C's worker pod (10.52.3.140 in B) to its ExternalCIDR
  // IP 10.245.0.45, which A sees as 10.61.2.45. B's own worker pod has C's pod's IP.
  auto ab = peer(2, 1);
  ab.mappings = {{"10.61.2.45", "10.52.3.140"}};
  fed.set_peers("a", {peer(1, 2)});
  fed.set_peers("b", {ab, peer(2, 3)});
  fed.set_peers("c", {peer(3, 2)});
  fed.wait_converged(2);
  CHECK(fed.probe("pa2", "10.61.2.45", 3s) == reply("pc2", "10.53.2.1", "pa2"));
  CHECK(fed.probe("pa1", "10.61.2.45", 3s) == reply("pc2", "10.53.2.1", "pa1"));
  CHECK(fed.probe("pa2", pod_view(1, 3) + ".140") == "connect-failed");  // A-C no longer peered
  CHECK(fed.probe("pa2", pod_view(1, 2) + ".140", 3s) == reply("pb2", "10.52.1.140", "pa2"));

  fed.check_uninstall_restores(baseline);
}

TEST_CASE("direct routing: workers reach the gateway over the LAN, no overlay, same PodCIDR") {
  require_prerequisites();
  Lab lab;
  Federation fed(lab);
  for (auto [id, index] : {std::pair{"a", 1}, std::pair{"b", 2}}) {
    std::string p = std::string("p") + id;
    auto c = cluster(id, index, "10.244.0", "10.245.0.0/24",
                     {{p + "1", 1, "10.244.0.10"}, {p + "2", 2, "10.244.0.140"}});
    c.agent_args = "--direct-routing";
    fed.add_cluster(c);
  }
  auto baseline = lab.snapshot_all();
  fed.set_peers("a", {{"b", "10.51.2.0/24", "10.61.2.0/24", "10.52.1.0/24", "10.62.1.0/24", {}}});
  fed.set_peers("b", {{"a", "10.52.1.0/24", "10.62.1.0/24", "10.51.2.0/24", "10.61.2.0/24", {}}});
  fed.start(30s);
  fed.wait_converged(1);

  CHECK(fed.probe("pa2", "10.51.2.140", 3s) == reply("pb2", "10.52.1.140", "pa2"));
  CHECK(fed.probe("pb2", "10.52.1.10", 3s) == reply("pa1", "10.51.2.140", "pb2"));
  CHECK(fed.probe("pa1", "10.51.2.140", 3s) == reply("pb2", "10.52.1.10", "pa1"));
  for (const auto& n : fed.nodes()) {
    INFO("node " << n);
    CHECK(sh(lab.in(n, "ip link show fed.vxlan")).code != 0);
  }
  // Worker: peer ranges via the gateway's node IP; gateway: the worker's pods via its node IP.
  CHECK(lab.run("a2", "ip route show table 18960").find("10.51.2.0/24 via 172.20.1.1 dev lan0") !=
        std::string::npos);
  CHECK(
      lab.run("a1", "ip route show table 18960").find("10.244.0.128/25 via 172.20.1.2 dev lan0") !=
      std::string::npos);

  fed.check_uninstall_restores(baseline);
}
