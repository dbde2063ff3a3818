#include "plugin/membership/join_plan.hpp"

#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/federated_cluster.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/kube/kubeconfig_writer.hpp"
#include "shared/util/base64.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

}  // namespace

Status check_member_identity(const std::optional<ClusterIdentity>& existing,
                             const std::string& member, const std::string& host_id) {
  if (!existing) return ok();
  if (existing->role == FederationRole::Host) {
    return fail(ErrorCode::Invalid, "cluster " + member + " is the host of federation " +
                                        existing->cluster_id +
                                        "; a host cannot join another federation");
  }
  if (existing->federation_id != host_id) {
    return fail(ErrorCode::Invalid, "cluster " + member + " is member " + existing->cluster_id +
                                        " of federation " + existing->federation_id +
                                        "; unjoin it there (kubectl fed unjoin " +
                                        existing->cluster_id + ") before joining it to " + host_id);
  }
  if (existing->cluster_id != member) {
    return fail(ErrorCode::Invalid, "cluster was joined to " + host_id + " as " +
                                        existing->cluster_id + ", not " + member + "; join it as " +
                                        existing->cluster_id + " or unjoin it first");
  }
  return ok();
}

Status check_not_retargeted(bool already_joined, const std::optional<ClusterIdentity>& existing,
                            const std::string& member, const std::string& host_id) {
  if (!already_joined || existing) return ok();
  return fail(ErrorCode::Invalid,
              "member " + member + " is already joined to " + host_id +
                  ", but the cluster of the member context has no federation ConfigMap: it is "
                  "another cluster. Give " +
                  member + "'s own context (--member-context), or unjoin " + member +
                  " first (kubectl fed unjoin " + member + ")");
}

Status check_unjoin_target(const std::optional<ClusterIdentity>& existing,
                           const std::string& member, const std::string& host_id, bool force) {
  if (!existing) return ok();
  if (existing->role == FederationRole::Host) {
    return fail(ErrorCode::Invalid, "the member context reaches the host of federation " +
                                        existing->cluster_id + ", not member " + member +
                                        ": give " + member + "'s own context (--member-context)");
  }
  if (existing->federation_id != host_id) {
    if (force) return ok();
    return fail(ErrorCode::Invalid, "member " + member + " belongs to federation " +
                                        existing->federation_id + ", not " + host_id +
                                        "; unjoin it from its own host");
  }
  if (existing->cluster_id != member) {
    return fail(ErrorCode::Invalid, "the member context reaches member " + existing->cluster_id +
                                        " of " + host_id + ", not " + member + ": give " + member +
                                        "'s own context (--member-context)");
  }
  return ok();
}

std::string credential_secret_name(const std::string& member) {
  return "member-" + member;
}

kube::ResourceRef credential_secret_ref(const std::string& member) {
  return kube::ResourceRef{
      {"", "v1", "secrets"}, std::string(fedapi::kNamespace), credential_secret_name(member), ""};
}

std::string credential_kubeconfig(const std::string& member, const std::string& endpoint,
                                  const kube::RestConfig& member_config, const std::string& ca_pem,
                                  const std::string& token) {
  kube::Cluster cluster;
  cluster.server = endpoint;
  cluster.certificate_authority_data = ca_pem;
  cluster.insecure_skip_tls_verify = member_config.insecure_skip_tls_verify && ca_pem.empty();
  cluster.tls_server_name = member_config.tls_server_name;
  kube::User user;
  user.token = token;
  return kube::to_yaml(kube::single_context_kubeconfig(member, cluster, user, ""));
}

json credential_secret(const std::string& member, const std::string& kubeconfig) {
  json secret{{"apiVersion", "v1"},
              {"kind", "Secret"},
              {"type", "kubectl-fed.io/member-credential"},
              {"metadata",
               {{"name", credential_secret_name(member)},
                {"namespace", std::string(fedapi::kNamespace)},
                {"labels",
                 {{std::string(kPartOfLabel), std::string(kPartOfValue)},
                  {std::string(fedapi::kMemberCredentialLabel), member}}}}}};
  if (!kubeconfig.empty()) secret["data"] = {{"kubeconfig", util::base64_encode(kubeconfig)}};
  return secret;
}

json federated_cluster(const MemberSpec& spec) {
  json s{{"clusterID", spec.member},
         {"role", "member"},
         {"apiEndpoint", spec.api_endpoint},
         {"credentialSecretRef",
          {{"name", credential_secret_name(spec.member)},
           {"namespace", std::string(fedapi::kNamespace)}}}};
  if (!spec.cluster_labels.empty()) s["clusterLabels"] = spec.cluster_labels;
  json offered = json::object();
  if (!spec.share_cpu.empty()) offered["cpu"] = spec.share_cpu;
  if (!spec.share_memory.empty()) offered["memory"] = spec.share_memory;
  if (!offered.empty()) s["offered"] = offered;
  // Only when not the default: a FederatedCluster joined before the field compares unchanged.
  if (!spec.tunnel_backend.empty() && spec.tunnel_backend != "wireguard") {
    s["tunnelBackend"] = spec.tunnel_backend;
  }
  return json{{"apiVersion", std::string(fedapi::kApiVersion)},
              {"kind", std::string(fedapi::kFederatedCluster.kind)},
              {"metadata",
               {{"name", spec.member},
                {"labels", {{std::string(kPartOfLabel), std::string(kPartOfValue)}}}}},
              {"spec", s}};
}

ApplyOutcome plan_federated_cluster(const std::optional<json>& live, const json& desired) {
  if (!live) return ApplyOutcome::Created;
  if (live->value("spec", json::object()) != desired["spec"]) return ApplyOutcome::Configured;
  return covers(*live, desired) ? ApplyOutcome::Unchanged : ApplyOutcome::Configured;
}

bool already_joined(const std::vector<AppliedObject>& member_side,
                    const std::vector<AppliedObject>& host_side, bool gateway_labelled) {
  return !gateway_labelled && !any_change(member_side) && !any_change(host_side);
}

std::optional<std::string> not_ready_reason(const json& fc) {
  // An unreadable status reads as none: the manager has not reported anything usable.
  const auto status =
      fedapi::decode<fedapi::FederatedClusterStatus>(fc.value("status", json::object()), "status")
          .value_or(fedapi::FederatedClusterStatus{});
  const fedapi::Condition* ready = fedapi::find_condition(status.conditions, "Ready");
  if (ready == nullptr) {
    return std::string(
        "condition Ready is not reported yet: is the manager running? "
        "(kubectl -n kubectl-fed-system get deploy fed-manager)");
  }
  if (ready->status == "True") return std::nullopt;
  // Name the first of the specific conditions that is not True; Ready summarises them.
  for (const char* type : {"NetworkReady", "TunnelReady"}) {
    const fedapi::Condition* c = fedapi::find_condition(status.conditions, type);
    if (c == nullptr || c->status == "True") continue;
    return "condition " + std::string(type) + " is " + c->status + " (" + c->reason +
           "): " + c->message;
  }
  return "condition Ready is " + ready->status + " (" + ready->reason + "): " + ready->message;
}

std::optional<std::string> join_blocker(const json& fc, std::int64_t generation) {
  if (generation <= 0) return std::nullopt;
  const auto conditions = fedapi::read_conditions(fc.value("status", json::object()));
  const fedapi::Condition* ready = fedapi::find_condition(conditions, "Ready");
  if (ready == nullptr || ready->status == "True" || ready->observed_generation < generation) {
    return std::nullopt;
  }
  // Not MemberForbidden: the member's RBAC, applied by this join moments ago, may not be in its
  // API server's authorizer cache yet when the manager first tries.
  for (const char* terminal : {"MemberUnreachable", "MemberInvalid", "ForeignFederation"}) {
    if (ready->reason == terminal) return ready->reason + ": " + ready->message;
  }
  return std::nullopt;
}

}  // namespace fed::plugin
