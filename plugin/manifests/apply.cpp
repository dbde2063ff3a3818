#include "plugin/manifests/apply.hpp"

#include <map>

#include "plugin/manifests/render.hpp"
#include "shared/fedapi/group.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

bool covers_value(const json& live, const json& desired) {
  if (desired.is_object()) {
    if (!live.is_object()) return false;
    for (auto it = desired.begin(); it != desired.end(); ++it) {
      auto found = live.find(it.key());
      if (found == live.end()) {
        // An empty desired map or list is what the server drops.
        if ((it->is_object() || it->is_array()) && it->empty()) continue;
        return false;
      }
      if (!covers_value(*found, *it)) return false;
    }
    return true;
  }
  if (desired.is_array()) {
    if (!live.is_array() || live.size() != desired.size()) return false;
    for (std::size_t i = 0; i < desired.size(); ++i) {
      if (!covers_value(live[i], desired[i])) return false;
    }
    return true;
  }
  // Numbers compare by value (1 == 1.0); everything else exactly.
  if (desired.is_number() && live.is_number()) return desired.get<double>() == live.get<double>();
  return live == desired;
}

struct KindInfo {
  std::string group, version, resource;
  bool namespaced;
};

const std::map<std::string, KindInfo>& known_kinds() {
  static const std::map<std::string, KindInfo> kKinds = {
      {"Namespace", {"", "v1", "namespaces", false}},
      {"ServiceAccount", {"", "v1", "serviceaccounts", true}},
      {"Secret", {"", "v1", "secrets", true}},
      {"ConfigMap", {"", "v1", "configmaps", true}},
      {"Service", {"", "v1", "services", true}},
      {"Node", {"", "v1", "nodes", false}},
      {"ClusterRole", {"rbac.authorization.k8s.io", "v1", "clusterroles", false}},
      {"ClusterRoleBinding", {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", false}},
      {"Role", {"rbac.authorization.k8s.io", "v1", "roles", true}},
      {"RoleBinding", {"rbac.authorization.k8s.io", "v1", "rolebindings", true}},
      {"ValidatingAdmissionPolicy",
       {"admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", false}},
      {"ValidatingAdmissionPolicyBinding",
       {"admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings", false}},
      {"MutatingWebhookConfiguration",
       {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", false}},
      {"Deployment", {"apps", "v1", "deployments", true}},
      {"DaemonSet", {"apps", "v1", "daemonsets", true}},
      {"CustomResourceDefinition",
       {"apiextensions.k8s.io", "v1", "customresourcedefinitions", false}},
      {std::string(fedapi::kFederatedCluster.kind),
       {std::string(fedapi::kGroup), std::string(fedapi::kVersion),
        std::string(fedapi::kFederatedCluster.resource), false}},
      {std::string(fedapi::kDeploymentReplication.kind),
       {std::string(fedapi::kGroup), std::string(fedapi::kVersion),
        std::string(fedapi::kDeploymentReplication.resource), true}},
  };
  return kKinds;
}

Result<std::vector<AppliedObject>> run(kube::DynamicClient& client,
                                       const std::vector<json>& objects, const std::string& where,
                                       bool write) {
  std::vector<AppliedObject> out;
  for (const auto& object : objects) {
    const std::string label = object_label(object);
    FED_ASSIGN_OR_RETURN(auto live, get_live(client, object));
    const ApplyOutcome outcome = plan_outcome(live, object);
    if (write && outcome != ApplyOutcome::Unchanged) FED_TRY(write_object(client, object, where));
    out.push_back({label, outcome});
  }
  return out;
}

}  // namespace

std::string_view to_string(ApplyOutcome outcome) {
  switch (outcome) {
    case ApplyOutcome::Created:
      return "created";
    case ApplyOutcome::Configured:
      return "configured";
    case ApplyOutcome::Unchanged:
      return "unchanged";
  }
  return "unchanged";
}

bool covers(const json& live, const json& desired) {
  json want = desired;
  json have = live;
  json meta = json::object();
  for (const char* key : {"name", "namespace", "labels", "annotations"}) {
    if (desired.contains("metadata") && desired["metadata"].contains(key)) {
      meta[key] = desired["metadata"][key];
    }
  }
  want["metadata"] = meta;
  return covers_value(have, want);
}

ApplyOutcome plan_outcome(const std::optional<json>& live, const json& desired) {
  if (!live) return ApplyOutcome::Created;
  return covers(*live, desired) ? ApplyOutcome::Unchanged : ApplyOutcome::Configured;
}

kube::ApiResult<kube::ResourceRef> ref_of(kube::DynamicClient& client, const json& object) {
  const auto& kinds = known_kinds();
  auto it = kinds.find(object.value("kind", ""));
  if (it == kinds.end()) return client.ref_for(object);
  const KindInfo& k = it->second;
  const std::string api = k.group.empty() ? k.version : k.group + "/" + k.version;
  if (object.value("apiVersion", "") != api) return client.ref_for(object);
  kube::ResourceRef ref{{k.group, k.version, k.resource}, "", "", ""};
  ref.name = object["metadata"].value("name", "");
  if (k.namespaced) ref.ns = object["metadata"].value("namespace", "");
  return ref;
}

Result<std::optional<json>> get_live(kube::DynamicClient& client, const json& object) {
  const std::string label = object_label(object);
  auto ref = ref_of(client, object);
  if (!ref) {
    // A kind the server does not know yet (its CRD is about to be applied): nothing there.
    if (ref.error().code() == ErrorCode::NotFound) return std::optional<json>{};
    return fail(ref.error().code(), label + ": " + ref.error().to_error().message());
  }
  auto got = client.get(*ref);
  if (got) return std::optional<json>(std::move(*got));
  if (got.error().is_not_found()) return std::optional<json>{};
  return fail(got.error().code(), "reading " + label + ": " + got.error().to_error().message());
}

Result<std::vector<AppliedObject>> apply_objects(kube::DynamicClient& client,
                                                 const std::vector<json>& objects,
                                                 const std::string& where) {
  return run(client, objects, where, true);
}

Result<std::vector<AppliedObject>> plan_objects(kube::DynamicClient& client,
                                                const std::vector<json>& objects,
                                                const std::string& where) {
  return run(client, objects, where, false);
}

Result<json> write_object(kube::DynamicClient& client, const json& object,
                          const std::string& where) {
  const std::string label = object_label(object);
  auto ref = ref_of(client, object);
  if (!ref) {
    return fail(ref.error().code(),
                "applying " + label + " on " + where + ": " + ref.error().to_error().message());
  }
  auto applied = client.apply(
      *ref, object, kube::ApplyOptions{std::string(kFieldManager), /*force=*/true, false});
  if (!applied) {
    return fail(applied.error().code(),
                "applying " + label + " on " + where + ": " + applied.error().to_error().message());
  }
  return std::move(*applied);
}

bool any_change(const std::vector<AppliedObject>& applied) {
  for (const auto& a : applied) {
    if (a.outcome != ApplyOutcome::Unchanged) return true;
  }
  return false;
}

}  // namespace fed::plugin
