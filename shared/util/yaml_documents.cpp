#include "shared/util/yaml_documents.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace fed::util {
namespace {

using nlohmann::json;

bool digits_only(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string_view without_sign(std::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  return s;
}

// [-+]?[0-9]+
bool is_int(std::string_view s) {
  return digits_only(without_sign(s));
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, by hand: std::regex recurses once per
// character and overflows the stack on a long enough scalar.
bool is_float(std::string_view s) {
  s = without_sign(s);
  const auto e = s.find_first_of("eE");
  if (e != std::string_view::npos && !is_int(s.substr(e + 1))) return false;
  const std::string_view mantissa = s.substr(0, e);
  const auto dot = mantissa.find('.');
  if (dot == std::string_view::npos) return digits_only(mantissa);
  const auto whole = mantissa.substr(0, dot), fraction = mantissa.substr(dot + 1);
  if (whole.empty()) return digits_only(fraction);
  return digits_only(whole) && (fraction.empty() || digits_only(fraction));
}

// A plain (unquoted) scalar typed by the YAML 1.2 core schema.
json plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  try {
    if (is_int(s)) return std::stoll(s);
    if (is_float(s)) return std::stod(s);
  } catch (const std::out_of_range&) {
    // beyond int64 or a double: keep the text
  }
  return s;
}

struct Refused {
  YAML::Mark mark;
  std::string why;
  bool syntax = true;  // false: valid YAML, but beyond what we take
};

// Builds the JSON of each document from the parser's events. A value is finished when its
// scalar arrives or its collection ends; it then goes to its parent: a sequence's next item, a
// map's key, or the value of the key before it.
class JsonBuilder final : public YAML::EventHandler {
 public:
  std::vector<json> documents;

  void OnDocumentStart(const YAML::Mark& mark) override {
    // yaml-cpp reports a document without consuming anything when it cannot parse the next
    // token: the same start twice means it would loop forever.
    if (last_start_ && last_start_->pos == mark.pos) throw Refused{mark, "unexpected token"};
    last_start_ = mark;
    root_.reset();
  }
  void OnDocumentEnd() override { documents.push_back(root_ ? std::move(*root_) : json(nullptr)); }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    finish(mark, nullptr, anchor, 1);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw Refused{mark, "alias of an unknown anchor"};
    finish(mark, it->second.first, YAML::NullAnchor, it->second.second);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    // "!" is the tag of quoted scalars, "?" of plain ones.
    const bool text = tag == "!" || tag == "tag:yaml.org,2002:str";
    finish(mark, text ? json(value) : plain_scalar(value), anchor, 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, json::array(), anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, json::object(), anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    YAML::Mark mark;
    json value;
    YAML::anchor_t anchor;
    std::size_t values = 1;          // in this subtree, itself included
    std::optional<std::string> key;  // a map's key waiting for its value
  };

  void count(const YAML::Mark& mark, std::size_t n) {
    values_ += n;
    if (values_ > kYamlMaxValues) {
      throw Refused{mark,
                    "the text expands to more than " + std::to_string(kYamlMaxValues) +
                        " values (aliases repeating aliases?)",
                    false};
    }
  }

  void open(const YAML::Mark& mark, json empty, YAML::anchor_t anchor) {
    if (stack_.size() >= kYamlMaxDepth) {
      throw Refused{mark, "nested deeper than " + std::to_string(kYamlMaxDepth) + " levels", false};
    }
    count(mark, 1);
    stack_.push_back(Frame{mark, std::move(empty), anchor, 1, std::nullopt});
  }

  void close() {
    Frame done = std::move(stack_.back());
    stack_.pop_back();
    if (done.key) throw Refused{done.mark, "a map key without a value"};
    attach(done.mark, std::move(done.value), done.anchor, done.values);
  }

  // A value of `values` values that is complete; scalars count here, collections at open().
  void finish(const YAML::Mark& mark, json value, YAML::anchor_t anchor, std::size_t values) {
    count(mark, values);
    attach(mark, std::move(value), anchor, values);
  }

  void attach(const YAML::Mark& mark, json value, YAML::anchor_t anchor, std::size_t values) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = {value, values};
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Frame& parent = stack_.back();
    parent.values += values;
    if (parent.value.is_array()) {
      parent.value.push_back(std::move(value));
    } else if (!parent.key) {
      if (!value.is_string() && !value.is_number() && !value.is_boolean()) {
        throw Refused{mark, "a map key must be a scalar"};
      }
      parent.key = value.is_string() ? value.get<std::string>() : value.dump();
    } else {
      parent.value[*parent.key] = std::move(value);  // a repeated key: the last one wins
      parent.key.reset();
    }
  }

  std::vector<Frame> stack_;
  std::optional<json> root_;
  std::map<YAML::anchor_t, std::pair<json, std::size_t>> anchors_;
  std::optional<YAML::Mark> last_start_;
  std::size_t values_ = 0;  // over every document so far
};

Error invalid(std::string_view source, const YAML::Mark& mark, const std::string& why,
              bool syntax) {
  std::string where;
  if (!mark.is_null()) {
    where =
        " at line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
  }
  return Error(
      ErrorCode::Invalid,
      std::string(source) + (syntax ? ": not valid YAML" : ": refused") + where + ": " + why);
}

}  // namespace

Result<std::vector<json>> yaml_documents(std::string_view text, std::string_view source) {
  std::istringstream in{std::string(text)};
  JsonBuilder builder;
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const Refused& e) {
    return Unexpected(invalid(source, e.mark, e.why, e.syntax));
  } catch (const YAML::Exception& e) {
    return Unexpected(invalid(source, e.mark, e.msg, true));
  }
  return std::move(builder.documents);
}

}  // namespace fed::util
