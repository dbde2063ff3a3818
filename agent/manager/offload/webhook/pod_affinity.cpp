#include "agent/manager/offload/webhook/pod_affinity.hpp"

#include <algorithm>

#include "shared/fedapi/json_fields.hpp"

namespace fed::offload {
namespace {

using fedapi::NodeSelector;
using fedapi::NodeSelectorOperator;
using fedapi::NodeSelectorRequirement;
using fedapi::NodeSelectorTerm;
using fedapi::PodOffloadingStrategy;
using nlohmann::json;

constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";

NodeSelectorRequirement type_requirement(NodeSelectorOperator op) {
  return {std::string(fedapi::kTypeLabel), op, {std::string(fedapi::kTypeVirtualNode)}};
}

void append_unique(std::vector<NodeSelectorRequirement>& to,
                   const std::vector<NodeSelectorRequirement>& from) {
  for (const auto& r : from) {
    if (std::find(to.begin(), to.end(), r) == to.end()) to.push_back(r);
  }
}

void add_unique(std::vector<NodeSelectorTerm>& terms, NodeSelectorTerm term) {
  if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(std::move(term));
}

const json* find_path(const json& j, std::initializer_list<std::string_view> keys) {
  const json* at = &j;
  for (auto key : keys) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
  }
  return at;
}

}  // namespace

NodeSelector enforced_node_selector(PodOffloadingStrategy strategy,
                                    const NodeSelector& cluster_selector) {
  NodeSelector out;
  const NodeSelectorTerm local{{type_requirement(NodeSelectorOperator::NotIn)}, {}};
  switch (strategy) {
    case PodOffloadingStrategy::Local:
      out.node_selector_terms.push_back(local);
      break;
    case PodOffloadingStrategy::Remote:
      for (NodeSelectorTerm term : cluster_selector.node_selector_terms) {
        // Guards against a local node that exposes the same labels as a member.
        append_unique(term.match_expressions, {type_requirement(NodeSelectorOperator::In)});
        add_unique(out.node_selector_terms, std::move(term));
      }
      break;
    case PodOffloadingStrategy::LocalAndRemote:
      for (const auto& term : cluster_selector.node_selector_terms) {
        add_unique(out.node_selector_terms, term);
      }
      add_unique(out.node_selector_terms, local);
      break;
  }
  return out;
}

bool tolerates_virtual_nodes(PodOffloadingStrategy strategy) {
  return strategy != PodOffloadingStrategy::Local;
}

json virtual_node_toleration() {
  return json{{"key", fedapi::kVirtualNodeTaintKey},
              {"operator", "Equal"},
              {"value", fedapi::kVirtualNodeTaintValue},
              {"effect", fedapi::kVirtualNodeTaintEffect}};
}

Result<NodeSelector> intersect(const NodeSelector& user, const NodeSelector& enforced) {
  NodeSelector out;
  for (const auto& u : user.node_selector_terms) {
    if (u.empty()) continue;  // matches nothing, and so does its intersection
    for (const auto& e : enforced.node_selector_terms) {
      NodeSelectorTerm term = u;
      append_unique(term.match_expressions, e.match_expressions);
      append_unique(term.match_fields, e.match_fields);
      add_unique(out.node_selector_terms, std::move(term));
    }
  }
  if (out.node_selector_terms.empty()) {
    return fail(ErrorCode::Invalid,
                "spec.affinity.nodeAffinity." + std::string(kRequired) +
                    ".nodeSelectorTerms: every term is empty, so the pod matches no node; give "
                    "each term a matchExpressions or matchFields entry, or drop the affinity");
  }
  return out;
}

Result<json> pod_offloading_patch(PodOffloadingStrategy strategy,
                                  const NodeSelector& cluster_selector, const json& pod) {
  NodeSelector terms = enforced_node_selector(strategy, cluster_selector);
  const json* spec = find_path(pod, {"spec"});
  if (spec == nullptr || !spec->is_object()) {
    return fail(ErrorCode::Invalid, "pod has no spec object; nothing to schedule");
  }
  const json* affinity = find_path(*spec, {"affinity"});
  const json* node_affinity = find_path(*spec, {"affinity", "nodeAffinity"});
  const json* required = find_path(*spec, {"affinity", "nodeAffinity", kRequired});
  if (required != nullptr) {
    FED_ASSIGN_OR_RETURN(
        auto user, fedapi::decode<NodeSelector>(
                       *required, "pod spec.affinity.nodeAffinity." + std::string(kRequired)));
    FED_ASSIGN_OR_RETURN(terms, intersect(user, terms));
  }
  json ops = json::array();
  const json value = terms;
  if (affinity == nullptr) {
    ops.push_back({{"op", "add"},
                   {"path", "/spec/affinity"},
                   {"value", {{"nodeAffinity", {{std::string(kRequired), value}}}}}});
  } else if (node_affinity == nullptr) {
    ops.push_back({{"op", "add"},
                   {"path", "/spec/affinity/nodeAffinity"},
                   {"value", {{std::string(kRequired), value}}}});
  } else if (required == nullptr || *required != value) {
    // "add" on an existing member replaces it; preferred terms stay as they are.
    ops.push_back({{"op", "add"},
                   {"path", "/spec/affinity/nodeAffinity/" + std::string(kRequired)},
                   {"value", value}});
  }
  if (tolerates_virtual_nodes(strategy)) {
    const json toleration = virtual_node_toleration();
    const json* tolerations = find_path(*spec, {"tolerations"});
    if (tolerations == nullptr || !tolerations->is_array()) {
      ops.push_back(
          {{"op", "add"}, {"path", "/spec/tolerations"}, {"value", json::array({toleration})}});
    } else if (std::find(tolerations->begin(), tolerations->end(), toleration) ==
               tolerations->end()) {
      ops.push_back({{"op", "add"}, {"path", "/spec/tolerations/-"}, {"value", toleration}});
    }
  }
  return ops;
}

}  // namespace fed::offload
