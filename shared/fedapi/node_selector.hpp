#pragma once
// core/v1 NodeSelector as the API spells it (pod nodeAffinity, NamespaceOffloading
// clusterSelector): terms are ORed, the requirements inside a term ANDed. These are the plain
// types and their JSON; matching lives in shared/offload/node_selector_match.hpp.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fed::fedapi {

enum class NodeSelectorOperator { In, NotIn, Exists, DoesNotExist, Gt, Lt };

// "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt".
std::string_view to_string(NodeSelectorOperator op);

struct NodeSelectorRequirement {
  std::string key;
  NodeSelectorOperator op = NodeSelectorOperator::In;
  std::vector<std::string> values;

  friend bool operator==(const NodeSelectorRequirement&, const NodeSelectorRequirement&) = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;  // over node labels
  std::vector<NodeSelectorRequirement> match_fields;       // over node fields (metadata.name)

  bool empty() const { return match_expressions.empty() && match_fields.empty(); }
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;

  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
};

void to_json(nlohmann::json& j, const NodeSelectorRequirement& r);
// Throws FieldError (unknown operator, wrong types); call through decode().
void from_json(const nlohmann::json& j, NodeSelectorRequirement& r);
void to_json(nlohmann::json& j, const NodeSelectorTerm& t);
void from_json(const nlohmann::json& j, NodeSelectorTerm& t);
void to_json(nlohmann::json& j, const NodeSelector& s);
void from_json(const nlohmann::json& j, NodeSelector& s);

}  // namespace fed::fedapi
