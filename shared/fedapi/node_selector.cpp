#include "shared/fedapi/node_selector.hpp"

#include "shared/fedapi/enum_table.hpp"
#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {
namespace {

constexpr EnumTable<NodeSelectorOperator, 6> kOperators{{
    {NodeSelectorOperator::In, "In"},
    {NodeSelectorOperator::NotIn, "NotIn"},
    {NodeSelectorOperator::Exists, "Exists"},
    {NodeSelectorOperator::DoesNotExist, "DoesNotExist"},
    {NodeSelectorOperator::Gt, "Gt"},
    {NodeSelectorOperator::Lt, "Lt"},
}};

// The list of objects at `key` decoded as T, each error prefixed with "key[i]".
template <typename T>
std::vector<T> read_list(const nlohmann::json& j, std::string_view key) {
  std::vector<T> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) {
    throw FieldError(std::string(key) + ": must be a list, not " + std::string(it->type_name()));
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& item = (*it)[i];
    out.push_back(within(std::string(key) + "[" + std::to_string(i) + "]", [&] {
      if (!item.is_object()) {
        throw FieldError("must be an object, not " + std::string(item.type_name()));
      }
      return item.get<T>();
    }));
  }
  return out;
}

}  // namespace

std::string_view to_string(NodeSelectorOperator op) {
  return enum_name(kOperators, op);
}

void to_json(nlohmann::json& j, const NodeSelectorRequirement& r) {
  j = nlohmann::json::object();
  j["key"] = r.key;
  j["operator"] = std::string(to_string(r.op));
  if (!r.values.empty()) j["values"] = r.values;
}

void from_json(const nlohmann::json& j, NodeSelectorRequirement& r) {
  r.key = read_string(j, "key", Presence::Required);
  r.op = enum_from_name(kOperators, "operator", read_string(j, "operator", Presence::Required));
  r.values = read_string_list(j, "values");
}

void to_json(nlohmann::json& j, const NodeSelectorTerm& t) {
  j = nlohmann::json::object();
  if (!t.match_expressions.empty()) j["matchExpressions"] = t.match_expressions;
  if (!t.match_fields.empty()) j["matchFields"] = t.match_fields;
}

void from_json(const nlohmann::json& j, NodeSelectorTerm& t) {
  t.match_expressions = read_list<NodeSelectorRequirement>(j, "matchExpressions");
  t.match_fields = read_list<NodeSelectorRequirement>(j, "matchFields");
}

void to_json(nlohmann::json& j, const NodeSelector& s) {
  j = nlohmann::json::object();
  j["nodeSelectorTerms"] = s.node_selector_terms;
}

void from_json(const nlohmann::json& j, NodeSelector& s) {
  s.node_selector_terms = read_list<NodeSelectorTerm>(j, "nodeSelectorTerms");
}

}  // namespace fed::fedapi
