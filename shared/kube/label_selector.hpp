#pragma once
// Kubernetes label selectors: parsing the string form (`app=web,tier!=db,env in (a,b),!legacy`),
// building from a LabelSelector object (matchLabels/matchExpressions), matching label sets, and
// printing the canonical string used in list/watch query strings. Pure; no I/O.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "shared/result/result.hpp"

namespace fed::kube {

using Labels = std::map<std::string, std::string>;

enum class SelectorOp {
  Equals,        // key=value, key==value
  NotEquals,     // key!=value (also matches when the key is absent)
  In,            // key in (a,b)
  NotIn,         // key notin (a,b) (also matches when the key is absent)
  Exists,        // key
  DoesNotExist,  // !key
  GreaterThan,   // key>5 (integer comparison)
  LessThan,      // key<5
};

struct Requirement {
  std::string key;
  SelectorOp op = SelectorOp::Exists;
  std::vector<std::string> values;  // sorted, unique; one value for =, !=, >, <

  bool matches(const Labels& labels) const;
  // The canonical text of this requirement ("env in (a,b)").
  std::string to_string() const;
};

class LabelSelector final {
 public:
  // The empty selector: matches everything.
  LabelSelector() = default;

  // Parses the string form; an Invalid error names the offending position and token.
  static Result<LabelSelector> parse(std::string_view text);
  // Builds from a metav1.LabelSelector object ({"matchLabels": {...}, "matchExpressions": [...]}).
  // As in the API, `{}` matches everything and null matches nothing.
  static Result<LabelSelector> from_json(const nlohmann::json& selector);
  // The selector that matches no object (a null metav1.LabelSelector).
  static LabelSelector nothing();

  // Adds a requirement after validating key and values.
  Status add(Requirement requirement);

  // True when the selector matches everything.
  bool empty() const { return requirements_.empty() && !nothing_; }
  bool matches_nothing() const { return nothing_; }
  bool matches(const Labels& labels) const;
  // Matches an object's metadata.labels (a JSON object of strings); null means no labels.
  bool matches_json(const nlohmann::json& labels) const;
  // Requirements joined by commas, sorted by key: the labelSelector query value. The nothing()
  // selector has no string form and gives "" (callers check matches_nothing() first).
  std::string to_string() const;
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
  bool nothing_ = false;
};

// Whether `key` is a valid label key: an optional DNS-subdomain prefix and '/', then a name of
// at most 63 characters of [A-Za-z0-9-_.] starting and ending alphanumeric.
bool is_valid_label_key(std::string_view key);
// Whether `value` is a valid label value: empty, or a name as above.
bool is_valid_label_value(std::string_view value);

// Reads metadata.labels of an object into a Labels map; missing or non-string entries skipped.
Labels labels_of(const nlohmann::json& object);

}  // namespace fed::kube
