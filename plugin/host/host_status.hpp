#pragma once
// The HOSTS part of `kubectl fed status` (docs/HA.md): which manager leads the federation, from
// the fed-leader ConfigMap its leader publishes, and per host cluster its role, its federation
// etcd member's health and lag (as the leading manager probes them into the FederationHosts'
// status.etcd) and, for the host status runs on, its manager replicas. Pure.

#include <optional>

#include <nlohmann/json.hpp>

#include "plugin/cli/output.hpp"

namespace fed::plugin {

// What status reads on a host, each absent when it could not be read.
struct HostObservation {
  std::string host_id;                         // this host's cluster id
  std::optional<nlohmann::json> leader;        // ConfigMap fed-leader
  std::optional<nlohmann::json> etcd_pods;     // PodList of app.kubernetes.io/name=fed-etcd
  std::optional<nlohmann::json> manager_pods;  // PodList of app.kubernetes.io/name=fed-manager
  // FederationHostList as the leader's host has it; absent when it could not be read there
  // (nobody leads, no kubeconfig context reaches the leader's host): a follower's own copies
  // are from when it last led, too old to say anything of the other hosts.
  std::optional<nlohmann::json> federation_hosts;
};

// {"leader": {holder, host, epoch, since, failoverSeconds} or null, "hosts": [{name, role,
// etcd: {state, node, phase, health, lag, raftLeader}, managers: {ready, total, leaderPod}}]}.
// hosts[0] is this host, then the others by name (managers null: not observed). role is
// "leader" for the host fed-leader names, "no leader" on this host when it names none or is
// missing; another host is "unreachable" when the leader cannot reach its etcd member, else
// "follower". The other hosts are listed only from the leader's FederationHosts.
nlohmann::json hosts_document(const HostObservation& observed);

// HOST, ROLE, ETCD MEMBER, LAG, MANAGERS READY, LEADER POD.
Table hosts_table(const nlohmann::json& document);

// "Leader: HOLDER on host HOST (epoch N since T)" or "Leader: none ...".
std::string leader_line(const nlohmann::json& document);

}  // namespace fed::plugin
