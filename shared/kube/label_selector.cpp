#include "shared/kube/label_selector.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace fed::kube {
namespace {

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// A "qualified name" segment: <= 63 chars of [A-Za-z0-9-_.], alphanumeric at both ends.
bool is_name(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!is_alnum(s.front()) || !is_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// A DNS-1123 subdomain: lowercase labels separated by dots, at most 253 characters.
bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (start <= s.size()) {
    size_t dot = s.find('.', start);
    if (dot == std::string_view::npos) dot = s.size();
    std::string_view label = s.substr(start, dot - start);
    if (label.empty() || label.size() > 63) return false;
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    for (char c : label) {
      if (!lower_alnum(c) && c != '-') return false;
    }
    start = dot + 1;
  }
  return true;
}

std::optional<long long> parse_int(std::string_view s) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

bool is_valid_label_key(std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) return is_name(key);
  return is_dns_subdomain(key.substr(0, slash)) && is_name(key.substr(slash + 1));
}

bool is_valid_label_value(std::string_view value) {
  return value.empty() || is_name(value);
}

bool Requirement::matches(const Labels& labels) const {
  const auto it = labels.find(key);
  const bool has = it != labels.end();
  auto contains = [&](const std::string& v) {
    return std::binary_search(values.begin(), values.end(), v);
  };
  switch (op) {
    case SelectorOp::Equals:
    case SelectorOp::In:
      return has && contains(it->second);
    case SelectorOp::NotEquals:
    case SelectorOp::NotIn:
      return !has || !contains(it->second);
    case SelectorOp::Exists:
      return has;
    case SelectorOp::DoesNotExist:
      return !has;
    case SelectorOp::GreaterThan:
    case SelectorOp::LessThan: {
      if (!has || values.size() != 1) return false;
      const auto have = parse_int(it->second);
      const auto want = parse_int(values.front());
      if (!have || !want) return false;
      return op == SelectorOp::GreaterThan ? *have > *want : *have < *want;
    }
  }
  return false;
}

std::string Requirement::to_string() const {
  auto joined = [&] {
    std::string s;
    for (const auto& v : values) s += (s.empty() ? "" : ",") + v;
    return s;
  };
  const std::string first = values.empty() ? "" : values.front();
  switch (op) {
    case SelectorOp::Equals:
      return key + "=" + first;
    case SelectorOp::NotEquals:
      return key + "!=" + first;
    case SelectorOp::In:
      return key + " in (" + joined() + ")";
    case SelectorOp::NotIn:
      return key + " notin (" + joined() + ")";
    case SelectorOp::Exists:
      return key;
    case SelectorOp::DoesNotExist:
      return "!" + key;
    case SelectorOp::GreaterThan:
      return key + ">" + first;
    case SelectorOp::LessThan:
      return key + "<" + first;
  }
  return key;
}

Status LabelSelector::add(Requirement r) {
  if (!is_valid_label_key(r.key)) {
    return fail(ErrorCode::Invalid,
                "label selector: invalid key \"" + r.key +
                    "\": use up to 63 characters of [A-Za-z0-9-_.], optionally prefixed by a "
                    "DNS subdomain and '/'");
  }
  std::sort(r.values.begin(), r.values.end());
  r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
  switch (r.op) {
    case SelectorOp::Exists:
    case SelectorOp::DoesNotExist:
      if (!r.values.empty()) {
        return fail(ErrorCode::Invalid,
                    "label selector: \"" + r.key + "\": exists/does-not-exist takes no values");
      }
      break;
    case SelectorOp::Equals:
    case SelectorOp::NotEquals:
      if (r.values.size() != 1) {
        return fail(ErrorCode::Invalid,
                    "label selector: \"" + r.key + "\": = and != take exactly one value");
      }
      break;
    case SelectorOp::In:
    case SelectorOp::NotIn:
      if (r.values.empty()) {
        return fail(ErrorCode::Invalid,
                    "label selector: \"" + r.key + "\": in/notin need at least one value");
      }
      break;
    case SelectorOp::GreaterThan:
    case SelectorOp::LessThan:
      if (r.values.size() != 1 || !parse_int(r.values.front())) {
        return fail(ErrorCode::Invalid,
                    "label selector: \"" + r.key + "\": > and < take one integer value");
      }
      break;
  }
  if (r.op != SelectorOp::GreaterThan && r.op != SelectorOp::LessThan) {
    for (const auto& v : r.values) {
      if (!is_valid_label_value(v)) {
        return fail(ErrorCode::Invalid, "label selector: invalid value \"" + v + "\" for key \"" +
                                            r.key +
                                            "\": use up to 63 characters of "
                                            "[A-Za-z0-9-_.], alphanumeric at both ends");
      }
    }
  }
  // Stable sort by key: the canonical order of the Go implementation's String().
  auto pos = std::upper_bound(requirements_.begin(), requirements_.end(), r.key,
                              [](const std::string& k, const Requirement& x) { return k < x.key; });
  requirements_.insert(pos, std::move(r));
  return ok();
}

LabelSelector LabelSelector::nothing() {
  LabelSelector s;
  s.nothing_ = true;
  return s;
}

Result<LabelSelector> LabelSelector::from_json(const nlohmann::json& selector) {
  if (selector.is_null()) return nothing();
  if (!selector.is_object()) {
    return fail(ErrorCode::Invalid,
                "label selector: expected an object with matchLabels and/or "
                "matchExpressions, got " +
                    std::string(selector.type_name()));
  }
  LabelSelector sel;
  if (auto ml = selector.find("matchLabels"); ml != selector.end() && !ml->is_null()) {
    if (!ml->is_object()) {
      return fail(ErrorCode::Invalid, "label selector: matchLabels must be an object");
    }
    for (const auto& [k, v] : ml->items()) {
      if (!v.is_string()) {
        return fail(ErrorCode::Invalid, "label selector: matchLabels." + k + " must be a string");
      }
      FED_TRY(sel.add(Requirement{k, SelectorOp::Equals, {v.get<std::string>()}}));
    }
  }
  if (auto me = selector.find("matchExpressions"); me != selector.end() && !me->is_null()) {
    if (!me->is_array()) {
      return fail(ErrorCode::Invalid, "label selector: matchExpressions must be a list");
    }
    for (const auto& e : *me) {
      Requirement r;
      if (!e.is_object() || !e.contains("key") || !e["key"].is_string() ||
          !e.contains("operator") || !e["operator"].is_string()) {
        return fail(ErrorCode::Invalid,
                    "label selector: each matchExpressions entry needs a key and an operator");
      }
      r.key = e["key"].get<std::string>();
      const auto op = e["operator"].get<std::string>();
      if (op == "In") {
        r.op = SelectorOp::In;
      } else if (op == "NotIn") {
        r.op = SelectorOp::NotIn;
      } else if (op == "Exists") {
        r.op = SelectorOp::Exists;
      } else if (op == "DoesNotExist") {
        r.op = SelectorOp::DoesNotExist;
      } else {
        return fail(ErrorCode::Invalid, "label selector: unknown operator \"" + op +
                                            "\"; use In, NotIn, Exists or DoesNotExist");
      }
      if (auto vals = e.find("values"); vals != e.end() && vals->is_array()) {
        for (const auto& v : *vals) {
          if (!v.is_string()) {
            return fail(ErrorCode::Invalid, "label selector: values must be strings");
          }
          r.values.push_back(v.get<std::string>());
        }
      }
      FED_TRY(sel.add(std::move(r)));
    }
  }
  return sel;
}

bool LabelSelector::matches(const Labels& labels) const {
  if (nothing_) return false;
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const Requirement& r) { return r.matches(labels); });
}

bool LabelSelector::matches_json(const nlohmann::json& labels) const {
  Labels map;
  if (labels.is_object()) {
    for (const auto& [k, v] : labels.items()) {
      if (v.is_string()) map.emplace(k, v.get<std::string>());
    }
  }
  return matches(map);
}

std::string LabelSelector::to_string() const {
  std::string out;
  for (const auto& r : requirements_) out += (out.empty() ? "" : ",") + r.to_string();
  return out;
}

Labels labels_of(const nlohmann::json& object) {
  Labels out;
  if (!object.is_object()) return out;
  auto md = object.find("metadata");
  if (md == object.end() || !md->is_object()) return out;
  auto labels = md->find("labels");
  if (labels == md->end() || !labels->is_object()) return out;
  for (const auto& [k, v] : labels->items()) {
    if (v.is_string()) out.emplace(k, v.get<std::string>());
  }
  return out;
}

}  // namespace fed::kube
