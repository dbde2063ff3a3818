// Data-plane cost the thesis never measured: TCP throughput (one stream) and connection latency
// (connect + one request/reply) between pods of two emulated clusters through the agent's
// datapath, against a direct veth between two namespaces. Target: >= 90 % of direct.
//
// This VM's throughput swings by +-30 % from one 3 s run to the next (shared host), so the paths
// are measured in interleaved rounds with the sender pinned to CPU 0 and the receiver to CPU 1,
// and medians are compared. Two "routed" paths have the hops of the gateway path (pod, node,
// WAN bridge, node, pod) and of the worker path (pod, worker, gateway, WAN bridge, gateway,
// worker, pod) with plain routes and no agent: they separate what the emulated hops cost (all
// forwarding of a stream runs on the sender's CPU here) from what the datapath adds; clusters E
// and F are the exact reference of the worker path, the lab's own nodes and pods with plain
// routes and no agent. The worker path is measured twice: over the VXLAN overlay (the default)
// and with --direct-routing (clusters C and D).
#include <unistd.h>

#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tests/bench/agent/node/fabric/tcp_paths.hpp"
#include "tests/netns/agent/node/fabric/federation.hpp"

using namespace fed::fabric::netns_test;
using namespace std::chrono_literals;

namespace {

// Plain routing over the hops of a datapath path, without the agent: pod "<p>x" -- `routers`
// forwarding namespaces -- bridge "<p>w" -- `routers` more -- pod "<p>y" (10.<net+2>.0.10).
// One router per side has the gateway path's hops; two have the worker path's (worker, then
// gateway). Every router has the CNI stand-ins of the Federation's nodes (a policy rule and a
// nat rule: policy routing and conntrack on), so the comparison isolates what the agent adds.
// Link m of side s (its pod is node 0, then routers 1..k) is 10.<net+s>.m.0/24, the
// upper end .1, the lower .2 (the pod .10); the bridge is 10.<net>.0.0/24, router k at .s.
void routed_chain(Lab& lab, const std::string& p, int routers, int net) {
  const std::string bridge = p + "w";
  lab.add_ns(bridge);
  lab.run(bridge, "sh -c 'ip link add br0 type bridge && ip link set br0 up'");
  for (int s = 1; s <= 2; ++s) {
    const std::string side = "10." + std::to_string(net + s) + ".";
    const std::string pod = p + (s == 1 ? "x" : "y");
    auto router = [&](int j) { return p + std::to_string(s) + std::to_string(j); };
    lab.add_ns(pod);
    for (int j = 1; j <= routers; ++j) lab.add_ns(router(j));
    for (int m = 0; m < routers; ++m) {
      const std::string lower = m == 0 ? pod : router(m), upper = router(m + 1);
      veth(lab, lower, "up0", upper, "down0");
      const std::string link = side + std::to_string(m) + ".";
      lab.run(lower, "sh -c 'ip addr add " + link + (m == 0 ? "10" : "2") +
                         "/24 dev up0 && ip link set up0 up && ip route add default via " + link +
                         "1'");
      lab.run(upper, "sh -c 'sysctl -qw net.ipv4.ip_forward=1 && ip addr add " + link +
                         "1/24 dev down0 && ip link set down0 up" +
                         (m > 0 ? " && ip route add " + side + "0.0/16 via " + link + "2" : "") +
                         "'");
    }
    for (int j = 1; j <= routers; ++j) add_cni_stand_ins(lab, router(j), "down0");
    veth(lab, router(routers), "up0", bridge, "w" + std::to_string(s));
    lab.run(bridge, "sh -c 'ip link set w" + std::to_string(s) + " master br0 && ip link set w" +
                        std::to_string(s) + " up'");
    const std::string other = "10." + std::to_string(net + 3 - s) + ".0.0/16";
    lab.run(router(routers), "sh -c 'ip addr add 10." + std::to_string(net) + ".0." +
                                 std::to_string(s) + "/24 dev up0 && ip link set up0 up && " +
                                 "ip route add " + other + " via 10." + std::to_string(net) +
                                 ".0." + std::to_string(3 - s) + "'");
  }
}

ClusterSpec cluster(const std::string& id, int index, const std::string& net24) {
  ClusterSpec c;
  c.id = id;
  c.index = index;
  c.pod_cidr = net24 + ".0/24";
  c.external_cidr = "10.245.0.0/24";
  c.node_pod_cidr[0] = net24 + ".0/25";
  c.node_pod_cidr[1] = net24 + ".128/25";
  c.pods = {{"p" + id + "1", 1, net24 + ".10"}, {"p" + id + "2", 2, net24 + ".140"}};
  return c;
}

}  // namespace

TEST_CASE("TCP throughput and latency: direct veth vs across clusters through the datapath") {
  REQUIRE(::geteuid() == 0);
  REQUIRE(::sysconf(_SC_NPROCESSORS_ONLN) >= 2);
  Lab lab;
  lab.add_ns("x");
  lab.add_ns("y");
  veth(lab, "x", "eth0", "y", "eth0");
  lab.run("x", "sh -c 'ip addr add 10.99.0.1/24 dev eth0 && ip link set eth0 up'");
  lab.run("y", "sh -c 'ip addr add 10.99.0.2/24 dev eth0 && ip link set eth0 up'");
  serve(lab, "y");
  routed_chain(lab, "g", 1, 80);
  serve(lab, "gy");
  routed_chain(lab, "w", 2, 83);
  serve(lab, "wy");

  // Same PodCIDR on both sides: double NAT. A sees B's pods as 10.51.2.0/24, B sees A's as
  // 10.52.1.0/24.
  Federation fed(lab);
  fed.add_cluster(cluster("a", 1, "10.244.0"));
  fed.add_cluster(cluster("b", 2, "10.244.0"));
  fed.set_peers("a", {{"b", "10.51.2.0/24", "10.61.2.0/24", "10.52.1.0/24", "10.62.1.0/24", {}}});
  fed.set_peers("b", {{"a", "10.52.1.0/24", "10.62.1.0/24", "10.51.2.0/24", "10.61.2.0/24", {}}});
  // C and D: the same, with --direct-routing (workers reach their gateway without VXLAN).
  for (auto [id, index] : {std::pair{"c", 3}, std::pair{"d", 4}}) {
    auto c = cluster(id, index, "10.244.0");
    c.agent_args = "--direct-routing";
    fed.add_cluster(c);
  }
  fed.set_peers("c", {{"d", "10.53.4.0/24", "10.63.4.0/24", "10.54.3.0/24", "10.64.3.0/24", {}}});
  fed.set_peers("d", {{"c", "10.54.3.0/24", "10.64.3.0/24", "10.53.4.0/24", "10.63.4.0/24", {}}});
  fed.start(30s);
  fed.wait_converged(1);
  // E and F, added after the agents started: the lab's own nodes, links and pods with plain
  // static routes and no agent (distinct PodCIDRs, so no NAT). The worker path's hops exactly as
  // the datapath's clusters build them, pod attachment and CNI stand-ins included.
  fed.add_cluster(cluster("e", 5, "10.246.0"));
  fed.add_cluster(cluster("f", 6, "10.247.0"));
  lab.run("e2", "ip route add 10.247.0.0/24 via 172.20.5.1 dev lan0");
  lab.run("e1", "ip route add 10.247.0.0/24 via 203.0.113.6 dev wan0");
  lab.run("f2", "ip route add 10.246.0.0/24 via 172.20.6.1 dev lan0");
  lab.run("f1", "ip route add 10.246.0.0/24 via 203.0.113.5 dev wan0");
  sink(lab, "pb1");
  sink(lab, "pb2");
  sink(lab, "pd2");
  serve(lab, "pf2");

  auto path = [](std::string label, std::string from, std::string to_ip, int same_hops) {
    return TcpPath{std::move(label), std::move(from), std::move(to_ip), same_hops, {}, {}};
  };
  std::vector<TcpPath> paths = {
      path("direct veth between two namespaces", "x", "10.99.0.2", 0),
      path("routed, no agent: the gateway path's hops", "gx", "10.82.0.10", 1),
      path("routed, no agent: the worker path's hops", "wx", "10.85.0.10", 2),
      path("routed, no agent: the worker path on the lab's nodes", "pe2", "10.247.0.140", 2),
      path("gateway pod -> gateway pod: double NAT over the WAN bridge", "pa1", "10.51.2.10", 1),
      path("worker pod -> worker pod: VXLAN, double NAT, WAN, VXLAN", "pa2", "10.51.2.140", 2),
      path("worker pod -> worker pod: --direct-routing, double NAT, WAN", "pc2", "10.53.4.140", 2),
  };
  measure(lab, paths, "the same hops routed");
  fed.stop_agents();
  for (const auto& n : fed.nodes()) CHECK(fed.datapath(n, "--uninstall").code == 0);
}
