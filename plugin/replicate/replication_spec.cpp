#include "plugin/replicate/replication_spec.hpp"

#include <set>

#include "plugin/cli/cluster_selector_flag.hpp"
#include "plugin/manifests/render.hpp"
#include "shared/fedapi/deployment_replication.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/manifest.hpp"
#include "shared/kube/label_selector.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

Unexpected invalid(std::string message) {
  return fail(ErrorCode::Invalid, std::move(message));
}

// Annotations that describe one Deployment object, not the workload: copied onto every
// replica they would be wrong (a revision the replica never had, another object's last apply).
constexpr std::string_view kDroppedAnnotations[] = {
    "deployment.kubernetes.io/revision",
    "kubectl.kubernetes.io/last-applied-configuration",
};

// Nulls mean "unset" in the API, but a null kept in the template would never read back equal
// from the server (which drops it), so every replicate would look like a change.
json without_nulls(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [key, item] : value.items()) {
      if (!item.is_null()) out[key] = without_nulls(item);
    }
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& item : value) {
      if (!item.is_null()) out.push_back(without_nulls(item));
    }
    return out;
  }
  return value;
}

// The Deployment's own labels and annotations, as the template's metadata.
json template_metadata(const json& metadata) {
  json out = json::object();
  if (metadata.contains("labels") && metadata["labels"].is_object() &&
      !metadata["labels"].empty()) {
    out["labels"] = metadata["labels"];
  }
  if (metadata.contains("annotations") && metadata["annotations"].is_object()) {
    json annotations = metadata["annotations"];
    for (auto key : kDroppedAnnotations) annotations.erase(std::string(key));
    if (!annotations.empty()) out["annotations"] = std::move(annotations);
  }
  return out;
}

// The client-side part of the API server's check "selector does not match template labels",
// for matchLabels only (matchExpressions are left to the server when a replica is created).
Status check_selector_matches_pods(const json& spec, std::string_view source) {
  const json& selector = spec["selector"];
  const json match_labels = selector.value("matchLabels", json::object());
  if (match_labels.empty() && selector.value("matchExpressions", json::array()).empty()) {
    return invalid(std::string(source) +
                   ": spec.selector is empty; a Deployment needs matchLabels such as "
                   "{app: web}, carried by spec.template.metadata.labels");
  }
  const json pod_meta = spec["template"].value("metadata", json::object());
  const json pod_labels = pod_meta.value("labels", json::object());
  for (const auto& [key, value] : match_labels.items()) {
    auto found = pod_labels.find(key);
    if (found == pod_labels.end() || *found != value) {
      return invalid(std::string(source) + ": spec.template.metadata.labels lacks " + key + "=" +
                     (value.is_string() ? value.get<std::string>() : value.dump()) +
                     " of spec.selector.matchLabels; the pods must carry every label the "
                     "selector matches");
    }
  }
  return ok();
}

}  // namespace

Status validate_replicate_flags(const ReplicateOptions& o) {
  if (o.name.empty()) {
    return invalid("replicate needs NAME, e.g. kubectl fed replicate web -n shop -f web.yaml");
  }
  if (o.name.size() > kMaxReplicationNameLength) {
    return invalid("NAME \"" + o.name + "\" is " + std::to_string(o.name.size()) +
                   " characters: at most " + std::to_string(kMaxReplicationNameLength) +
                   ", so that its replicas' names (NAME-xxxxx) fit in 63");
  }
  if (!is_dns_label(o.name)) {
    return invalid("NAME \"" + o.name +
                   "\": not a DNS label (a-z, 0-9 and '-', starting and ending alphanumeric)");
  }
  if (o.file.empty() == o.from_deployment.empty()) {
    return invalid(std::string(o.file.empty() ? "neither -f nor --from-deployment is given"
                                              : "-f and --from-deployment are both given") +
                   ": give exactly one, the Deployment to replicate (-f FILE, '-' for stdin, or "
                   "--from-deployment DEP of the namespace)");
  }
  std::set<std::string> seen;
  for (const auto& key : o.generation_labels) {
    if (!kube::is_valid_label_key(key)) {
      return invalid("--generation-label \"" + key +
                     "\": not a label key ([prefix/]name, the name at most 63 of a-z, A-Z, 0-9, "
                     "'-', '_', '.', alphanumeric at both ends)");
    }
    if (!seen.insert(key).second) {
      return invalid("--generation-label " + key + " is given twice: give each label once");
    }
  }
  FED_TRY(node_selector_from_flags(o.selectors));
  return ok();
}

Status validate_replication_namespace(const std::string& ns) {
  if (!is_dns_label(ns)) {
    return invalid("-n \"" + ns + "\": not a namespace name (1-63 of a-z, 0-9, '-')");
  }
  return ok();
}

Result<json> deployment_from_manifest(std::string_view text, std::string_view source) {
  const std::string where(source);
  auto docs = fedapi::parse_manifests(text, where);
  if (!docs) return invalid(docs.error().message());
  if (docs->size() != 1) {
    return invalid(where + ": holds " + std::to_string(docs->size()) +
                   " YAML documents; give exactly one Deployment");
  }
  const json& doc = docs->front();  // an object: parse_manifests refuses anything else
  const json api = doc.value("apiVersion", json("")), kind = doc.value("kind", json(""));
  if (api != "apps/v1" || kind != "Deployment") {
    return invalid(where + ": apiVersion " + api.dump() + ", kind " + kind.dump() +
                   " is not a Deployment; give an apps/v1 Deployment manifest");
  }
  return doc;
}

Result<json> replication_from_deployment(const ReplicateOptions& o, const std::string& ns,
                                         const json& deployment, std::string_view source) {
  FED_TRY(validate_replicate_flags(o));
  FED_TRY(validate_replication_namespace(ns));
  const std::string where(source);
  const json metadata = deployment.value("metadata", json::object());
  const std::string own_ns = metadata.value("namespace", "");
  if (!own_ns.empty() && own_ns != ns) {
    return invalid(where + ": metadata.namespace is " + own_ns + ", the replication's is " + ns +
                   ": pass -n " + own_ns + " or remove metadata.namespace");
  }
  const json spec = without_nulls(deployment.value("spec", json::object()));
  if (!spec.is_object() || !spec.contains("selector") || !spec["selector"].is_object()) {
    return invalid(where + ": spec.selector is required (e.g. matchLabels: {app: web})");
  }
  if (!spec.contains("template") || !spec["template"].is_object()) {
    return invalid(where + ": spec.template is required (the pod template to replicate)");
  }
  if (spec.contains("replicas") &&
      (!spec["replicas"].is_number_integer() || spec["replicas"].get<std::int64_t>() < 0)) {
    return invalid(where + ": spec.replicas must be a whole number 0 or more, not " +
                   spec["replicas"].dump() + " (each replica Deployment runs that many pods)");
  }
  FED_TRY(check_selector_matches_pods(spec, where));

  json replication_spec{{"template", {{"spec", spec}}}};
  json tmpl_meta = template_metadata(metadata);
  if (!tmpl_meta.empty()) replication_spec["template"]["metadata"] = std::move(tmpl_meta);
  if (!o.generation_labels.empty()) replication_spec["generationLabels"] = o.generation_labels;
  if (!o.selectors.empty()) {
    FED_ASSIGN_OR_RETURN(auto selected, node_selector_from_flags(o.selectors));
    replication_spec["selectedClusters"] = selected;
  }
  // The manager decodes the spec this way; whatever it would refuse is refused here first.
  auto decoded = fedapi::decode<fedapi::DeploymentReplicationSpec>(replication_spec, where);
  if (!decoded) return invalid(decoded.error().message());
  return json{{"apiVersion", std::string(fedapi::kApiVersion)},
              {"kind", std::string(fedapi::kDeploymentReplication.kind)},
              {"metadata",
               {{"name", o.name},
                {"namespace", ns},
                {"labels", {{std::string(kManagedByLabel), std::string(kPartOfValue)}}}}},
              {"spec", *decoded}};
}

}  // namespace fed::plugin
