#pragma once
// The HOSTS part of `kubectl fed status` (docs/HA.md): which manager leads the federation, from
// the fed-leader ConfigMap its leader publishes, and per host cluster its role, its federation
// etcd member's health and its manager replicas. Pure.

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
};

// {"leader": {holder, host, epoch, since, failoverSeconds} or null, "hosts": [{name, role,
// etcd: {ready, node}, managers: {ready, total, leaderPod}}]}. role is "leader" when fed-leader
// names this host, "follower" when it names another, "no leader" when it names none or is
// missing.
nlohmann::json hosts_document(const HostObservation& observed);

// HOST, ROLE, ETCD MEMBER, MANAGERS, LEADER POD.
Table hosts_table(const nlohmann::json& document);

// "Leader: HOLDER on host HOST (epoch N since T)" or "Leader: none ...".
std::string leader_line(const nlohmann::json& document);

}  // namespace fed::plugin
