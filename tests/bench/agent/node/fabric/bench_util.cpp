#include "tests/bench/agent/node/fabric/bench_util.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

extern char** environ;

namespace fed::fabric::bench {
namespace {
int g_counter = 0;
}

TempNs::TempNs() {
  name_ = "fedb" + std::to_string(::getpid()) + "-" + std::to_string(++g_counter);
  std::system(("ip netns add " + name_).c_str());
}

TempNs::~TempNs() {
  std::system(("ip netns del " + name_).c_str());
}

NodeNetworkState gateway_state(int mappings) {
  NodeNetworkState st;
  st.cluster_id = "a";
  st.node_name = st.gateway_node = "a1";
  st.pod_cidr = *net::Cidr::parse("10.1.0.0/24");
  st.external_cidr = *net::Cidr::parse("10.128.0.0/16");
  st.nodes.push_back(ClusterNode{"a1", *net::Ipv4::parse("172.20.1.1"), st.pod_cidr});
  Peer b;
  b.cluster_id = "b";
  b.pod_cidr = *net::Cidr::parse("10.2.0.0/24");
  b.external_cidr = *net::Cidr::parse("10.130.0.0/16");
  b.local_pod_remap = *net::Cidr::parse("10.9.1.0/24");
  b.tunnel_interface = "wan0";
  b.tunnel_endpoint = *net::Ipv4::parse("203.0.113.2");
  for (int i = 0; i < mappings; ++i) {
    b.nat_mappings.push_back(
        NatMapping{net::Ipv4{0x0A800001u + static_cast<std::uint32_t>(i)},
                   net::Ipv4{0x0A020000u + 2 + static_cast<std::uint32_t>(i % 250)}});
  }
  st.peers.push_back(b);
  return st;
}

std::string state_yaml(const NodeNetworkState& st) {
  std::string y = "clusterID: " + st.cluster_id + "\nnodeName: " + st.node_name +
                  "\ngatewayNode: " + st.gateway_node + "\npodCIDR: " + st.pod_cidr.str() +
                  "\nexternalCIDR: " + st.external_cidr.str() + "\nnodes:\n";
  for (const auto& n : st.nodes) {
    y += "  - {name: " + n.name + ", ip: " + n.ip.str() + ", podCIDR: " + n.pod_cidr.str() + "}\n";
  }
  y += "peers:\n";
  for (const auto& p : st.peers) {
    y += "  - clusterID: " + p.cluster_id + "\n    podCIDR: " + p.pod_cidr.str() +
         "\n    externalCIDR: " + p.external_cidr.str() + "\n";
    if (p.local_pod_remap) y += "    localNATPodCIDR: " + p.local_pod_remap->str() + "\n";
    y += "    tunnel: {interface: " + p.tunnel_interface +
         ", endpoint: " + p.tunnel_endpoint.str() + "}\n    natMappings:\n";
    for (const auto& m : p.nat_mappings) {
      y += "      " + m.external_ip.str() + ": " + m.endpoint_ip.str() + "\n";
    }
  }
  return y;
}

std::string iptables_args(const os::NatRule& r) {
  std::string s;
  if (r.src)
    s += std::string(r.src_negated == os::Negation::Yes ? "! " : "") + "-s " + r.src->str() + " ";
  if (r.dst) s += "-d " + r.dst->str() + " ";
  if (!r.comment.empty()) s += "-m comment --comment " + r.comment + " ";
  switch (r.action) {
    case os::NatAction::Jump:
      return s + "-j " + r.jump;
    case os::NatAction::Dnat:
      return s + "-j DNAT --to-destination " + r.to_ip.str();
    case os::NatAction::Snat:
      return s + "-j SNAT --to-source " + r.to_ip.str();
    case os::NatAction::Netmap:
      return s + "-j NETMAP --to " + r.to_net.str();
    default:
      return s + "-j RETURN";
  }
}

std::string restore_document(
    const std::vector<std::pair<std::string, std::vector<os::NatRule>>>& chains,
    const std::vector<std::pair<std::string, os::NatRule>>& hooks) {
  std::string doc = "*nat\n";
  for (const auto& [name, rules] : chains) doc += ":" + name + " - [0:0]\n";
  for (const auto& [hook, rule] : hooks) doc += "-I " + hook + " 1 " + iptables_args(rule) + "\n";
  for (const auto& [name, rules] : chains) {
    for (const auto& r : rules) doc += "-A " + name + " " + iptables_args(r) + "\n";
  }
  return doc + "COMMIT\n";
}

int run_here(const std::vector<std::string>& argv, const std::string& input) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!input.empty()) posix_spawn_file_actions_addopen(&fa, 0, input.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

}  // namespace fed::fabric::bench
