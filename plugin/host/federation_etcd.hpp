#pragma once
// The host's member of the federation etcd (docs/HA.md, manifests/manager/etcd.yaml): the
// certificates of the federation's etcd CA it and the managers use, the member's flags, and
// the endpoint the managers elect their leader through. Pure but for the keys' randomness.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::plugin {

inline constexpr int kEtcdClientPort = 2479;
inline constexpr int kEtcdPeerPort = 2480;
inline constexpr std::string_view kEtcdCaSecret = "fed-etcd-ca";
inline constexpr std::string_view kEtcdMemberSecret = "fed-etcd-member";
inline constexpr std::string_view kManagerEtcdClientSecret = "fed-manager-etcd-client";
// On the member's Secret: the addresses its certificate names, "CLIENT_IP,PEER_ADDRESS".
inline constexpr std::string_view kEtcdAddressesAnnotation = "kubectl-fed.io/etcd-addresses";

// One host's member.
struct EtcdMember {
  std::string name;          // the host's cluster id
  std::string client_ip;     // the gateway node's InternalIP: the host's managers dial it
  std::string peer_address;  // the gateway's address other hosts reach (its gateway address)
};

std::string client_url(const EtcdMember& member);  // https://CLIENT_IP:2479
std::string peer_url(const EtcdMember& member);    // https://PEER_ADDRESS:2480

// The three Secrets as the cluster holds them (absent: nullopt).
struct EtcdSecretsFound {
  std::optional<nlohmann::json> ca, member, manager_client;
};

// The Secrets of `member` in `ns`: the CA (kept when found, so that a second init changes
// nothing and the other hosts keep trusting it), the member's serving-and-peer certificate
// (kept while it names the same addresses and comes from that CA) and the managers' client
// certificate (kept while it comes from that CA). Each leaf Secret carries ca.crt.
Result<std::vector<nlohmann::json>> federation_etcd_secrets(
    const EtcdMember& member, const EtcdSecretsFound& found, const std::string& ns,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// How the member starts: the first host's founds a cluster of itself; another host's joins the
// cluster its FederationHost's status names (--initial-cluster-state existing).
struct EtcdBootstrap {
  std::string federation_id;    // the cluster token's suffix
  std::string initial_cluster;  // empty: the member alone (a new cluster)
  // The member id the leader gave a joining member (hex). Its data directory is named after it:
  // a host removed and added again is a new member and must not start from the old one's data,
  // which its peers would refuse.
  std::string member_id;
};

// Appends the member's own flags to the fed-etcd Deployment: its name, the peer URL it
// advertises, the initial cluster and its state, and the cluster token.
void set_etcd_member_args(nlohmann::json& deployment, const EtcdMember& member,
                          const EtcdBootstrap& bootstrap);

// Appends --leader-elect-etcd-endpoints (the member's client URL) to the fed-manager
// Deployment's container.
void set_manager_etcd_endpoint(nlohmann::json& deployment, const EtcdMember& member);

// Completes init's objects for `member`: the etcd and manager Deployments' flags, and the
// Secrets inserted after the Namespace (before any pod needs them).
Status add_federation_etcd(std::vector<nlohmann::json>& objects, const EtcdMember& member,
                           const EtcdSecretsFound& found, const EtcdBootstrap& bootstrap,
                           const std::string& ns);

// The FederationHost that registers `member` with the federation (on the leader's host).
nlohmann::json federation_host(const EtcdMember& member);

// `object` with every Secret value replaced by "<redacted>": what a dry run prints.
nlohmann::json redact_secret_data(nlohmann::json object);

}  // namespace fed::plugin
