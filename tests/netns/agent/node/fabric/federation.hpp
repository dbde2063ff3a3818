#pragma once
// Federation: the clusters of a netns test. Each cluster has a gateway node "<id>1" and a worker
// node "<id>2" on a LAN, pods as namespaces behind veths with /32 routes (the "CNI"), a CNI-like
// foreign nat rule, route and policy rule on every node (which the agent must never touch), and
// the gateway's wan0 on a shared bridge, the "WAN" standing in for the tunnel. The datapath
// runs as real fed-node-datapath processes, one per node, fed by state files.

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/netns/agent/node/fabric/lab.hpp"

namespace fed::fabric::netns_test {

struct PodSpec {
  std::string name;  // also the namespace and the name the pod's server answers with
  int node = 2;      // 1 = gateway node, 2 = worker node
  std::string ip;
};

struct ClusterSpec {
  std::string id;  // "a"; nodes are "<id>1" and "<id>2"
  int index = 1;   // node IPs 172.20.<index>.1/.2, WAN address 203.0.113.<index>
  std::string pod_cidr, external_cidr;
  std::string node_pod_cidr[2];  // slices of pod_cidr on node 1 and node 2
  std::vector<PodSpec> pods;
  std::string agent_args;  // extra flags for this cluster's agents, e.g. "--direct-routing"
};

// Cluster `id` with PodCIDR <net24>.0/24, split in halves between its two nodes.
inline ClusterSpec cluster(const std::string& id, int index, const std::string& net24,
                           const std::string& ext, std::vector<PodSpec> pods) {
  ClusterSpec c;
  c.id = id;
  c.index = index;
  c.pod_cidr = net24 + ".0/24";
  c.external_cidr = ext;
  c.node_pod_cidr[0] = net24 + ".0/25";
  c.node_pod_cidr[1] = net24 + ".128/25";
  c.pods = std::move(pods);
  return c;
}

// A peer as the listing cluster sees it.
struct PeerSpec {
  std::string id;
  std::string pod_view, ext_view;                // the peer's ranges in our view
  std::string local_pod_remap, local_ext_remap;  // ours in the peer's view; "" = not remapped
  std::vector<std::pair<std::string, std::string>> mappings;  // external IP -> endpoint IP
};

class Federation {
 public:
  explicit Federation(Lab& lab);

  void add_cluster(const ClusterSpec& spec);
  // Writes both nodes' state files of `cluster` with these peers (agents pick them up).
  void set_peers(const std::string& cluster, const std::vector<PeerSpec>& peers);
  // The state document of one node, as set_peers writes it.
  std::string state_yaml(const std::string& cluster, int node,
                         const std::vector<PeerSpec>& peers) const;
  std::string state_path(const std::string& node) const;

  // Starts one agent per node (Run mode) and a TCP server in every pod.
  void start(std::chrono::milliseconds resync);
  // Waits until every agent has logged `passes` converged passes in total.
  void wait_converged(int passes);
  void stop_agents();
  // Runs `fed-node-datapath <args>` in the node's namespace; returns exit code and output.
  CmdResult datapath(const std::string& node, const std::string& args);

  // Connects from `pod` to `ip`, sending the pod's name; returns the server's reply or
  // "connect-failed". With `retry_for`, retries until a reply arrives or the time is up.
  std::string probe(const std::string& pod, const std::string& ip,
                    std::chrono::milliseconds retry_for = std::chrono::milliseconds(0));

  // Stops the agents, runs --uninstall twice on every node and CHECKs that every namespace is
  // byte-identical to `baseline` (Lab::snapshot_all() taken before the agents started).
  void check_uninstall_restores(const std::map<std::string, std::string>& baseline);

  std::vector<std::string> nodes() const;
  Lab& lab() { return lab_; }
  std::string agent_log(const std::string& node) const { return lab_.dir() + "/" + node + ".log"; }

 private:
  Lab& lab_;
  std::map<std::string, ClusterSpec> clusters_;
  std::map<std::string, pid_t> agents_;
};

// Objects a CNI and kube-proxy would have on `node` (a route in table 100, a policy rule at the
// agent's priority, a nat rule): the agent must never touch them, and they turn on policy
// routing and conntrack as on a real node. `dev` is a link of the node.
void add_cni_stand_ins(Lab& lab, const std::string& node, const std::string& dev);

// Paths of the binaries under test.
std::string datapath_binary();
std::string probe_binary();

}  // namespace fed::fabric::netns_test
