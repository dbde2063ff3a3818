#include "shared/offload/node_selector_match.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

namespace fed::offload {

NodeFacts facts_of(const nlohmann::json& node) {
  const nlohmann::json meta = node.value("metadata", nlohmann::json::object());
  NodeFacts facts{meta.value("name", ""), {}};
  const nlohmann::json labels = meta.value("labels", nlohmann::json::object());
  for (const auto& [k, v] : labels.items()) {
    if (v.is_string()) facts.labels[k] = v.get<std::string>();
  }
  return facts;
}
namespace {

using fedapi::NodeSelectorOperator;
using fedapi::NodeSelectorRequirement;

std::string quote_text(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

// The problems of one label requirement (matchExpressions[i]), appended to `errors`.
void check_expression(const NodeSelectorRequirement& r, const std::string& path,
                      std::vector<std::string>& errors) {
  if (!kube::is_valid_label_key(r.key)) {
    errors.push_back(path + ".key: " + quote_text(r.key) +
                     " is not a valid label key (optional DNS prefix and '/', then at most 63 "
                     "characters [A-Za-z0-9-_.] starting and ending alphanumeric)");
  }
  switch (r.op) {
    case NodeSelectorOperator::In:
    case NodeSelectorOperator::NotIn:
      if (r.values.empty()) {
        errors.push_back(path + ".values: " + std::string(fedapi::to_string(r.op)) +
                         " needs at least one value");
      }
      break;
    case NodeSelectorOperator::Exists:
    case NodeSelectorOperator::DoesNotExist:
      if (!r.values.empty()) {
        errors.push_back(path + ".values: " + std::string(fedapi::to_string(r.op)) +
                         " takes no values; remove them");
      }
      break;
    case NodeSelectorOperator::Gt:
    case NodeSelectorOperator::Lt: {
      if (r.values.size() != 1) {
        errors.push_back(path + ".values: " + std::string(fedapi::to_string(r.op)) +
                         " takes exactly one value, not " + std::to_string(r.values.size()));
        return;
      }
      long long ignored = 0;
      if (!parse_int64(r.values.front(), ignored)) {
        errors.push_back(path + ".values[0]: " + quote_text(r.values.front()) +
                         " is not an integer (Gt and Lt compare label values as 64-bit integers)");
      }
      return;
    }
  }
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    if (!kube::is_valid_label_value(r.values[i])) {
      errors.push_back(path + ".values[" + std::to_string(i) + "]: " + quote_text(r.values[i]) +
                       " is not a valid label value");
    }
  }
}

// The problems of one field requirement (matchFields[i]).
void check_field(const NodeSelectorRequirement& r, const std::string& path,
                 std::vector<std::string>& errors) {
  if (r.key != "metadata.name") {
    errors.push_back(path + ".key: " + quote_text(r.key) +
                     " is not a node field selector key (only metadata.name)");
  }
  if (r.op != NodeSelectorOperator::In && r.op != NodeSelectorOperator::NotIn) {
    errors.push_back(path + ".operator: " + std::string(fedapi::to_string(r.op)) +
                     " is not supported on fields (only In and NotIn)");
  }
  if (r.values.size() != 1) {
    errors.push_back(path + ".values: a field requirement takes exactly one value, not " +
                     std::to_string(r.values.size()));
  }
}

std::vector<std::string> term_errors(const fedapi::NodeSelectorTerm& term,
                                     const std::string& path) {
  std::vector<std::string> errors;
  for (std::size_t i = 0; i < term.match_expressions.size(); ++i) {
    check_expression(term.match_expressions[i],
                     path + ".matchExpressions[" + std::to_string(i) + "]", errors);
  }
  for (std::size_t i = 0; i < term.match_fields.size(); ++i) {
    check_field(term.match_fields[i], path + ".matchFields[" + std::to_string(i) + "]", errors);
  }
  return errors;
}

std::string join(const std::vector<std::string>& errors) {
  std::string out;
  for (const auto& e : errors) out += (out.empty() ? "" : "; ") + e;
  return out;
}

bool contains(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// A well-formed label requirement against `labels` (labels.Requirement.Matches).
bool expression_matches(const NodeSelectorRequirement& r, const kube::Labels& labels) {
  const auto it = labels.find(r.key);
  const bool has = it != labels.end();
  switch (r.op) {
    case NodeSelectorOperator::In:
      return has && contains(r.values, it->second);
    case NodeSelectorOperator::NotIn:
      return !has || !contains(r.values, it->second);
    case NodeSelectorOperator::Exists:
      return has;
    case NodeSelectorOperator::DoesNotExist:
      return !has;
    case NodeSelectorOperator::Gt:
    case NodeSelectorOperator::Lt: {
      long long have = 0, want = 0;
      if (!has || !parse_int64(it->second, have) || !parse_int64(r.values.front(), want)) {
        return false;
      }
      return r.op == NodeSelectorOperator::Gt ? have > want : have < want;
    }
  }
  return false;
}

}  // namespace

bool parse_int64(std::string_view s, long long& out) {
  if (s.empty()) return false;
  bool negative = false;
  if (s.front() == '+' || s.front() == '-') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.front() < '0' || s.front() > '9') return false;
  // Parse with the sign attached so that -9223372036854775808 fits.
  const std::string text = (negative ? "-" : "") + std::string(s);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

Status validate_node_selector(const fedapi::NodeSelector& selector, std::string_view path) {
  std::vector<std::string> errors;
  const std::string base = std::string(path) + ".nodeSelectorTerms";
  for (std::size_t i = 0; i < selector.node_selector_terms.size(); ++i) {
    auto more = term_errors(selector.node_selector_terms[i], base + "[" + std::to_string(i) + "]");
    errors.insert(errors.end(), more.begin(), more.end());
  }
  if (errors.empty()) return ok();
  return fail(ErrorCode::Invalid, join(errors));
}

Result<bool> term_matches(const fedapi::NodeSelectorTerm& term, const NodeFacts& node,
                          std::string_view path) {
  if (term.empty()) return false;  // "nil or empty term selects no objects"
  const auto errors = term_errors(term, std::string(path));
  if (!errors.empty()) return fail(ErrorCode::Invalid, join(errors));
  for (const auto& r : term.match_expressions) {
    if (!expression_matches(r, node.labels)) return false;
  }
  for (const auto& r : term.match_fields) {
    const bool equal = node.name == r.values.front();
    if (equal != (r.op == NodeSelectorOperator::In)) return false;
  }
  return true;
}

Result<bool> matches(const fedapi::NodeSelector& selector, const NodeFacts& node,
                     std::string_view path) {
  std::vector<std::string> errors;
  for (std::size_t i = 0; i < selector.node_selector_terms.size(); ++i) {
    auto m = term_matches(selector.node_selector_terms[i], node,
                          std::string(path) + "[" + std::to_string(i) + "]");
    if (!m) {
      errors.push_back(m.error().message());
      continue;
    }
    if (*m) return true;
  }
  if (errors.empty()) return false;
  return fail(ErrorCode::Invalid, join(errors));
}

}  // namespace fed::offload
