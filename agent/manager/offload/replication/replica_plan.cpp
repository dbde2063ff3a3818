#include "agent/manager/offload/replication/replica_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

#include "agent/manager/offload/webhook/pod_affinity.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/util/fnv1a.hpp"

namespace fed::offload {
namespace {

using fedapi::Combination;
using fedapi::NodeSelector;
using fedapi::NodeSelectorOperator;
using fedapi::NodeSelectorTerm;
using nlohmann::json;

constexpr std::string_view kRequiredNodeAffinity = "requiredDuringSchedulingIgnoredDuringExecution";

json combination_json(const Combination& combination) {
  json j = json::object();
  for (const auto& [label, value] : combination) j[label] = value ? json(*value) : json(nullptr);
  return j;
}

std::string hex8(std::uint32_t h) {
  char out[9];
  std::snprintf(out, sizeof out, "%08x", h);
  return out;
}

NodeSelectorTerm combination_term(const Combination& combination) {
  NodeSelectorTerm term;
  for (const auto& [label, value] : combination) {
    if (value) {
      term.match_expressions.push_back({label, NodeSelectorOperator::In, {*value}});
    } else {
      term.match_expressions.push_back({label, NodeSelectorOperator::DoesNotExist, {}});
    }
  }
  term.match_expressions.push_back({std::string(fedapi::kTypeLabel),
                                    NodeSelectorOperator::In,
                                    {std::string(fedapi::kTypeVirtualNode)}});
  return term;
}

const json& at_or_empty(const json& j, std::string_view key) {
  static const json kEmpty = json::object();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? kEmpty : *it;
}

std::string annotation(const json& object, std::string_view key) {
  return at_or_empty(at_or_empty(object, "metadata"), "annotations").value(std::string(key), "");
}

std::string label(const json& object, std::string_view key) {
  return at_or_empty(at_or_empty(object, "metadata"), "labels").value(std::string(key), "");
}

}  // namespace

std::vector<std::string> effective_generation_labels(
    const fedapi::DeploymentReplicationSpec& spec) {
  if (!spec.generation_labels.empty()) return spec.generation_labels;
  return {std::string(fedapi::kClusterIdLabel)};
}

std::map<std::string, Combination> combinations(const std::vector<NodeFacts>& eligible,
                                                const std::vector<std::string>& labels) {
  std::map<std::string, Combination> out;
  for (const auto& node : eligible) {
    Combination c;
    for (const auto& l : labels) {
      auto it = node.labels.find(l);
      c[l] = it == node.labels.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    out.emplace(combination_hash(c), std::move(c));
  }
  return out;
}

std::string combination_hash(const Combination& combination) {
  return hex8(util::fnv1a32(combination_json(combination).dump()));
}

std::map<std::string, std::string> label_values(const Combination& combination) {
  std::map<std::string, std::string> out;
  for (const auto& [label, value] : combination) {
    if (value) out[label] = *value;
  }
  return out;
}

Result<json> replica_deployment(const json& replication,
                                const fedapi::DeploymentReplicationSpec& spec,
                                const Combination& combination) {
  const json& meta = replication["metadata"];
  const std::string name = meta.value("name", "");
  const std::string hash = combination_hash(combination);
  const json own_labels{{std::string(fedapi::kReplicaOfLabel), name},
                        {std::string(fedapi::kCombinationLabel), hash}};

  json replica_spec = spec.template_spec;
  json& match_labels = replica_spec["selector"]["matchLabels"];
  if (!match_labels.is_object()) match_labels = json::object();
  match_labels.update(own_labels);
  json& pod = replica_spec["template"];
  if (!pod["metadata"].is_object()) pod["metadata"] = json::object();
  if (!pod["metadata"]["labels"].is_object()) pod["metadata"]["labels"] = json::object();
  pod["metadata"]["labels"].update(own_labels);
  if (!pod["spec"].is_object()) pod["spec"] = json::object();
  json& pod_spec = pod["spec"];

  // Pinned to the combination's virtual nodes, within whatever the template itself requires.
  NodeSelector pinned{{combination_term(combination)}};
  const json& required = at_or_empty(at_or_empty(at_or_empty(pod_spec, "affinity"), "nodeAffinity"),
                                     kRequiredNodeAffinity);
  if (!required.empty()) {
    FED_ASSIGN_OR_RETURN(auto user,
                         fedapi::decode<NodeSelector>(required,
                                                      "spec.template.spec.template.spec.affinity."
                                                      "nodeAffinity." +
                                                          std::string(kRequiredNodeAffinity)));
    FED_ASSIGN_OR_RETURN(pinned, intersect(user, pinned));
  }
  pod_spec["affinity"]["nodeAffinity"][std::string(kRequiredNodeAffinity)] = pinned;
  json& tolerations = pod_spec["tolerations"];
  if (!tolerations.is_array()) tolerations = json::array();
  const json toleration = virtual_node_toleration();
  if (std::find(tolerations.begin(), tolerations.end(), toleration) == tolerations.end()) {
    tolerations.push_back(toleration);
  }

  json labels = at_or_empty(spec.template_metadata, "labels");
  labels.update(own_labels);
  json annotations = at_or_empty(spec.template_metadata, "annotations");
  annotations[std::string(fedapi::kCombinationAnnotation)] = combination_json(combination).dump();
  // The hash covers everything the controller writes, so a change of the template, the
  // combination or this function's output rewrites the replica.
  const std::string spec_hash = hex8(util::fnv1a32(
      json{{"labels", labels}, {"annotations", annotations}, {"spec", replica_spec}}.dump()));
  annotations[std::string(fedapi::kReplicaSpecHashAnnotation)] = spec_hash;

  return json{{"apiVersion", "apps/v1"},
              {"kind", "Deployment"},
              {"metadata",
               {{"generateName", name + "-"},
                {"namespace", meta.value("namespace", "")},
                {"labels", labels},
                {"annotations", annotations},
                {"ownerReferences",
                 json::array({{{"apiVersion", std::string(fedapi::kApiVersion)},
                               {"kind", std::string(fedapi::kDeploymentReplication.kind)},
                               {"name", name},
                               {"uid", meta.value("uid", "")},
                               {"controller", true}}})}}},
              {"spec", replica_spec}};
}

ReplicaChoice choose_replicas(const std::vector<json>& existing,
                              const std::map<std::string, json>& desired_by_hash) {
  std::vector<const json*> sorted;
  for (const auto& r : existing) sorted.push_back(&r);
  // Oldest first, so the replica kept is the one already serving longest.
  std::sort(sorted.begin(), sorted.end(), [](const json* a, const json* b) {
    auto key = [](const json* r) {
      const json& m = (*r)["metadata"];
      return std::make_tuple(m.value("creationTimestamp", ""), m.value("name", ""));
    };
    return key(a) < key(b);
  });
  ReplicaChoice out;
  for (const json* r : sorted) {
    const std::string hash = label(*r, fedapi::kCombinationLabel);
    auto want = desired_by_hash.find(hash);
    // A selector is immutable: a replica whose selector differs is replaced, not rewritten.
    const bool usable =
        want != desired_by_hash.end() && out.keep.count(hash) == 0 &&
        at_or_empty(*r, "spec").value("selector", json()) == want->second["spec"]["selector"];
    if (usable) {
      out.keep[hash] = *r;
    } else {
      out.surplus.push_back(*r);
    }
  }
  return out;
}

bool replica_outdated(const json& existing, const json& desired) {
  return annotation(existing, fedapi::kReplicaSpecHashAnnotation) !=
         annotation(desired, fedapi::kReplicaSpecHashAnnotation);
}

json rewritten_replica(const json& existing, const json& desired) {
  json out = existing;
  out.erase("status");
  // Items of a LIST carry no kind of their own.
  out["apiVersion"] = "apps/v1";
  out["kind"] = "Deployment";
  out["metadata"]["labels"] = desired["metadata"]["labels"];
  json annotations = at_or_empty(existing["metadata"], "annotations");
  // The Deployment controller's own annotations (revision) stay; the template's win otherwise.
  annotations.update(desired["metadata"]["annotations"]);
  out["metadata"]["annotations"] = annotations;
  out["spec"] = desired["spec"];
  return out;
}

fedapi::ReplicaStatus replica_status(const json& replica, const Combination& combination) {
  fedapi::ReplicaStatus s;
  s.generation_labels_values = label_values(combination);
  s.deployment_last_condition = nullptr;
  const json& conditions = at_or_empty(at_or_empty(replica, "status"), "conditions");
  std::string newest;
  if (conditions.is_array()) {
    for (const auto& c : conditions) {
      const std::string at = c.value("lastUpdateTime", c.value("lastTransitionTime", ""));
      if (s.deployment_last_condition.is_null() || at > newest) {
        s.deployment_last_condition = c;
        newest = at;
      }
    }
  }
  return s;
}

bool replica_available(const json& replica) {
  const json& status = at_or_empty(replica, "status");
  const auto generation = at_or_empty(replica, "metadata").value("generation", std::int64_t{0});
  if (status.value("observedGeneration", std::int64_t{0}) < generation) return false;
  const json& conditions = at_or_empty(status, "conditions");
  if (!conditions.is_array()) return false;
  for (const auto& c : conditions) {
    if (c.value("type", "") == "Available") return c.value("status", "") == "True";
  }
  return false;
}

}  // namespace fed::offload
