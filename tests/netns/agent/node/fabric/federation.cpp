#include "tests/netns/agent/node/fabric/federation.hpp"

#include <signal.h>

#include <thread>

#include <doctest/doctest.h>

namespace fed::fabric::netns_test {
namespace {

std::string node_ip(int index, int node) {
  return "172.20." + std::to_string(index) + "." + std::to_string(node);
}
std::string wan_ip(int index) {
  return "203.0.113." + std::to_string(index);
}

}  // namespace

std::string datapath_binary() {
  return FED_NODE_DATAPATH;
}
std::string probe_binary() {
  return FED_TCP_PROBE;
}

void add_cni_stand_ins(Lab& lab, const std::string& node, const std::string& dev) {
  lab.run(node, "sh -c 'ip route add 198.18.0.0/15 dev " + dev +
                    " table 100 && ip rule add to 198.18.0.0/15 lookup 100 pref 1960 && "
                    "iptables-legacy -t nat -A POSTROUTING -d 198.18.0.0/15 "
                    "-m comment --comment cni-foreign -j RETURN'");
}

Federation::Federation(Lab& lab) : lab_(lab) {
  lab_.add_ns("wan");
  lab_.run("wan", "sh -c 'ip link add br0 type bridge && ip link set br0 up'");
}

void Federation::add_cluster(const ClusterSpec& c) {
  clusters_[c.id] = c;
  const std::string n1 = c.id + "1", n2 = c.id + "2";
  for (int i = 1; i <= 2; ++i) {
    const std::string n = c.id + std::to_string(i);
    lab_.add_ns(n);
    lab_.run(n, "sysctl -qw net.ipv4.ip_forward=1");
  }
  must("ip -n " + lab_.ns(n1) + " link add lan0 type veth peer name lan0 netns " + lab_.ns(n2));
  for (int i = 1; i <= 2; ++i) {
    const std::string n = c.id + std::to_string(i);
    lab_.run(n,
             "sh -c 'ip addr add " + node_ip(c.index, i) + "/24 dev lan0 && ip link set lan0 up'");
    // The CNI's route to the other node's pods, and foreign objects the agent must not touch.
    const std::string other = c.node_pod_cidr[i == 1 ? 1 : 0];
    lab_.run(n, "ip route add " + other + " via " + node_ip(c.index, i == 1 ? 2 : 1) + " dev lan0");
    add_cni_stand_ins(lab_, n, "lan0");
  }
  must("ip -n " + lab_.ns(n1) + " link add wan0 type veth peer name w-" + c.id + " netns " +
       lab_.ns("wan"));
  lab_.run("wan", "sh -c 'ip link set w-" + c.id + " master br0 && ip link set w-" + c.id + " up'");
  lab_.run(n1, "sh -c 'ip addr add " + wan_ip(c.index) + "/24 dev wan0 && ip link set wan0 up'");
  for (const auto& p : c.pods) {
    const std::string node = c.id + std::to_string(p.node);
    lab_.add_ns(p.name);
    must("ip -n " + lab_.ns(node) + " link add p-" + p.name + " type veth peer name eth0 netns " +
         lab_.ns(p.name));
    lab_.run(node, "sh -c 'ip addr add 169.254.1.1/32 dev p-" + p.name + " && ip link set p-" +
                       p.name + " up && ip route add " + p.ip + "/32 dev p-" + p.name + "'");
    lab_.run(p.name, "sh -c 'ip addr add " + p.ip +
                         "/32 dev eth0 && ip link set eth0 up && ip route add 169.254.1.1 dev "
                         "eth0 && ip route add default via 169.254.1.1 dev eth0'");
  }
}

std::string Federation::state_yaml(const std::string& cluster, int node,
                                   const std::vector<PeerSpec>& peers) const {
  const auto& c = clusters_.at(cluster);
  std::string y = "clusterID: " + c.id + "\nnodeName: " + c.id + std::to_string(node) +
                  "\ngatewayNode: " + c.id + "1\npodCIDR: " + c.pod_cidr +
                  "\nexternalCIDR: " + c.external_cidr + "\nnodes:\n";
  for (int i = 1; i <= 2; ++i) {
    y += "  - {name: " + c.id + std::to_string(i) + ", ip: " + node_ip(c.index, i) +
         ", podCIDR: " + c.node_pod_cidr[i - 1] + "}\n";
  }
  y += "peers:\n";
  for (const auto& p : peers) {
    const auto& pc = clusters_.at(p.id);
    y += "  - clusterID: " + p.id + "\n    podCIDR: " + p.pod_view +
         "\n    externalCIDR: " + p.ext_view + "\n    realPodCIDR: " + pc.pod_cidr +
         "\n    realExternalCIDR: " + pc.external_cidr + "\n";
    if (!p.local_pod_remap.empty()) y += "    localNATPodCIDR: " + p.local_pod_remap + "\n";
    if (!p.local_ext_remap.empty()) y += "    localNATExternalCIDR: " + p.local_ext_remap + "\n";
    y += "    tunnel: {interface: wan0, endpoint: " + wan_ip(pc.index) + "}\n";
    if (!p.mappings.empty()) {
      y += "    natMappings:\n";
      for (const auto& [ext, ep] : p.mappings) y += "      " + ext + ": " + ep + "\n";
    }
  }
  return y;
}

std::string Federation::state_path(const std::string& node) const {
  return lab_.dir() + "/" + node + ".yaml";
}

void Federation::set_peers(const std::string& cluster, const std::vector<PeerSpec>& peers) {
  for (int i = 1; i <= 2; ++i) {
    lab_.write_file(cluster + std::to_string(i) + ".yaml", state_yaml(cluster, i, peers));
  }
}

std::vector<std::string> Federation::nodes() const {
  std::vector<std::string> out;
  for (const auto& [id, c] : clusters_) {
    out.push_back(id + "1");
    out.push_back(id + "2");
  }
  return out;
}

void Federation::start(std::chrono::milliseconds resync) {
  for (const auto& [id, c] : clusters_) {
    for (const std::string& n : {id + "1", id + "2"}) {
      agents_[n] =
          lab_.spawn(n,
                     datapath_binary() + " -v --state-file " + state_path(n) + " --resync-period " +
                         std::to_string(resync.count()) + "ms " + c.agent_args,
                     agent_log(n));
    }
  }
  for (const auto& [id, c] : clusters_) {
    for (const auto& p : c.pods) {
      lab_.spawn(p.name, probe_binary() + " serve --port 8080 --name " + p.name,
                 lab_.dir() + "/" + p.name + ".log");
    }
  }
}

void Federation::wait_converged(int passes) {
  for (const auto& n : nodes()) {
    const std::string log = agent_log(n);  // INFO keeps references: no temporaries
    INFO("agent on " << n << " did not converge; log: " << log);
    REQUIRE(wait_for_text(agent_log(n), "pass converged", passes, std::chrono::seconds(20)));
  }
}

void Federation::stop_agents() {
  for (const auto& [n, pid] : agents_) lab_.stop(pid, SIGTERM);
  agents_.clear();
}

CmdResult Federation::datapath(const std::string& node, const std::string& args) {
  return sh(lab_.in(node, datapath_binary() + " " + args));
}

std::string Federation::probe(const std::string& pod, const std::string& ip,
                              std::chrono::milliseconds retry_for) {
  auto deadline = std::chrono::steady_clock::now() + retry_for;
  for (;;) {
    auto r = sh(lab_.in(pod, probe_binary() + " connect --port 8080 --timeout-ms 1000 --to " + ip +
                                 " --payload from-" + pod));
    std::string out = r.out.substr(0, r.out.find('\n'));
    if (r.code == 0 || std::chrono::steady_clock::now() >= deadline) {
      return r.code == 0 ? out : "connect-failed";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void Federation::check_uninstall_restores(const std::map<std::string, std::string>& baseline) {
  stop_agents();
  for (int round = 0; round < 2; ++round) {
    for (const auto& n : nodes()) {
      auto r = datapath(n, "--uninstall");
      INFO("uninstall on " << n << " (round " << round << "): " << r.out);
      CHECK(r.code == 0);
    }
  }
  auto after = lab_.snapshot_all();
  for (const auto& [ns, before] : baseline) {
    const std::string diff = lab_.diff(before, after.at(ns));
    INFO("namespace " << ns << "\n" << diff);
    CHECK(after.at(ns) == before);
  }
}

}  // namespace fed::fabric::netns_test
