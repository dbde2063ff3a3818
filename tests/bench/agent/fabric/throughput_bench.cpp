// Data-plane cost the thesis never measured: TCP throughput (one stream, 3 s) and connection
// latency (connect + one request/reply) between pods of two emulated clusters through the
// agent's datapath, against a direct veth between two namespaces. Target: >= 90 % of direct.
#include <signal.h>

#include <cstdlib>
#include <regex>
#include <thread>

#include <doctest/doctest.h>

#include "federation.hpp"

using namespace fed::fabric::netns_test;
using namespace std::chrono_literals;

namespace {

struct Figures {
  double gbit = 0;
  std::string rr;
};

std::string seconds() {
  const char* s = std::getenv("FED_BENCH_SECONDS");
  return s != nullptr ? s : "3";
}

Figures measure(Lab& lab, const std::string& from, const std::string& to_ip) {
  Figures f;
  for (int i = 0; i < 50; ++i) {  // servers start asynchronously
    if (sh(lab.in(from, probe_binary() + " rr --port 8080 --count 1 --to " + to_ip)).code == 0) {
      break;
    }
    std::this_thread::sleep_for(100ms);
  }
  auto out =
      lab.run(from, probe_binary() + " send --port 9000 --seconds " + seconds() + " --to " + to_ip);
  std::smatch m;
  if (std::regex_search(out, m, std::regex("gbit_per_s=([0-9.]+)"))) f.gbit = std::stod(m[1]);
  f.rr = lab.run(from, probe_binary() + " rr --port 8080 --count 500 --to " + to_ip);
  f.rr.erase(f.rr.find_last_not_of('\n') + 1);
  return f;
}

void serve(Lab& lab, const std::string& pod) {
  lab.spawn(pod, probe_binary() + " sink --port 9000", lab.dir() + "/" + pod + "-sink.log");
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
  Lab lab;
  lab.add_ns("x");
  lab.add_ns("y");
  must("ip -n " + lab.ns("x") + " link add eth0 type veth peer name eth0 netns " + lab.ns("y"));
  lab.run("x", "sh -c 'ip addr add 10.99.0.1/24 dev eth0 && ip link set eth0 up'");
  lab.run("y", "sh -c 'ip addr add 10.99.0.2/24 dev eth0 && ip link set eth0 up'");
  lab.spawn("y", probe_binary() + " serve --port 8080 --name y", lab.dir() + "/y.log");
  serve(lab, "y");
  auto direct = measure(lab, "x", "10.99.0.2");
  MESSAGE("direct veth: " << direct.gbit << " Gbit/s; " << direct.rr);

  // Same PodCIDR on both sides: double NAT. A sees B's pods as 10.51.2.0/24, B sees A's as
  // 10.52.1.0/24.
  Federation fed(lab);
  fed.add_cluster(cluster("a", 1, "10.244.0"));
  fed.add_cluster(cluster("b", 2, "10.244.0"));
  fed.set_peers("a", {{"b", "10.51.2.0/24", "10.61.2.0/24", "10.52.1.0/24", "10.62.1.0/24", {}}});
  fed.set_peers("b", {{"a", "10.52.1.0/24", "10.62.1.0/24", "10.51.2.0/24", "10.61.2.0/24", {}}});
  fed.start(30s);
  fed.wait_converged(1);
  serve(lab, "pb1");
  serve(lab, "pb2");
  auto gw = measure(lab, "pa1", "10.51.2.10");
  MESSAGE("gateway pod -> gateway pod, double NAT over the WAN bridge: "
          << gw.gbit << " Gbit/s (" << 100 * gw.gbit / direct.gbit << " % of direct); " << gw.rr);
  auto worker = measure(lab, "pa2", "10.51.2.140");
  MESSAGE("worker pod -> worker pod, VXLAN + double NAT + VXLAN: "
          << worker.gbit << " Gbit/s (" << 100 * worker.gbit / direct.gbit << " % of direct); "
          << worker.rr);
  fed.stop_agents();
  for (const auto& n : fed.nodes()) CHECK(fed.datapath(n, "--uninstall").code == 0);
}
