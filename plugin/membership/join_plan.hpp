#pragma once
// The pure decisions of `kubectl fed join` (docs/JOIN.md): whether the member may join this
// federation, the host-side objects (credential Secret, FederatedCluster) and their kubeconfig,
// whether a join changes anything ("already joined"), and what keeps a member from Ready.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/manifests/apply.hpp"
#include "plugin/manifests/render.hpp"
#include "shared/kube/resource_ref.hpp"
#include "shared/kube/rest_config.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// Refuses a member whose federation ConfigMap says it is a host, a member of another
// federation, or joined under another id. Invalid, one line with the fix. `existing` is the
// member's identity, nullopt when it has none.
Status check_member_identity(const std::optional<ClusterIdentity>& existing,
                             const std::string& member, const std::string& host_id);

// Refuses to join `member` to a cluster that does not know it when the host already has a
// FederatedCluster `member` (`already_joined`): the join would retarget the host's record and
// credential of one cluster at another. Invalid, with the fix.
Status check_not_retargeted(bool already_joined, const std::optional<ClusterIdentity>& existing,
                            const std::string& member, const std::string& host_id);

// Refuses to unjoin `member` through a cluster that is not that member (another member, the
// host, another federation's) before anything is deleted; --force passes a cluster of another
// federation only. A cluster with no identity passes (its side was removed already, or never
// finished). Invalid, with the fix.
Status check_unjoin_target(const std::optional<ClusterIdentity>& existing,
                           const std::string& member, const std::string& host_id, bool force);

// The desired FederatedCluster spec and its credential.
struct MemberSpec {
  std::string member;        // name and cluster id
  std::string api_endpoint;  // as the host's pods reach the member
  std::map<std::string, std::string> cluster_labels;
  std::string share_cpu, share_memory;  // empty = not offered
  std::string tunnel_backend;           // "vxlan"; empty or "wireguard" = the default
};

// "member-<member>", the host Secret with the member's credential.
std::string credential_secret_name(const std::string& member);
// Its address on the host (in kubectl-fed-system).
kube::ResourceRef credential_secret_ref(const std::string& member);

// The kubeconfig the manager uses for the member: `endpoint`, the CA (and TLS settings) of
// `member_config`, the federation's token.
std::string credential_kubeconfig(const std::string& member, const std::string& endpoint,
                                  const kube::RestConfig& member_config, const std::string& ca_pem,
                                  const std::string& token);

// The Secret kubectl-fed-system/member-<member> (type kubectl-fed.io/member-credential). With an
// empty kubeconfig (dry run) the data is left out.
nlohmann::json credential_secret(const std::string& member, const std::string& kubeconfig);

// The FederatedCluster <member>.
nlohmann::json federated_cluster(const MemberSpec& spec);

// Like plan_outcome, but a FederatedCluster's spec must match exactly: a flag left out on a
// re-join (no --cluster-labels) removes what an earlier join set.
ApplyOutcome plan_federated_cluster(const std::optional<nlohmann::json>& live,
                                    const nlohmann::json& desired);

// Whether a join is a no-op: every object unchanged and the gateway label in place.
bool already_joined(const std::vector<AppliedObject>& member_side,
                    const std::vector<AppliedObject>& host_side, bool gateway_labelled);

// Why a FederatedCluster is not Ready: "condition TunnelReady is False (TunnelPending): ...",
// or nullopt when Ready is True. A missing status says the manager has not reported yet.
std::optional<std::string> not_ready_reason(const nlohmann::json& federated_cluster);

// Why waiting on for the FederatedCluster cannot help: the manager reported, for `generation`
// (the one this join wrote) or later, that it cannot use the member's API server at all —
// unreachable from the host's pods (MemberUnreachable), a member of another federation
// (ForeignFederation) or an unusable credential (MemberInvalid).
// nullopt otherwise, and always with `generation` 0 (the join wrote nothing: an earlier report
// may be stale). Pure.
std::optional<std::string> join_blocker(const nlohmann::json& federated_cluster,
                                        std::int64_t generation);

}  // namespace fed::plugin
