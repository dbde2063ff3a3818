#include "agent/etcdproxy/classifier/prom_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace fed::etcdproxy::classifier {
namespace {

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9');
}

void skip_blanks(std::string_view s, std::size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

// Reads a metric or label name at i; empty when none starts there.
std::string_view read_name(std::string_view s, std::size_t& i, bool metric) {
  const std::size_t start = i;
  if (i >= s.size() || !name_start(s[i]) || (!metric && s[i] == ':')) return {};
  ++i;
  while (i < s.size() && name_char(s[i]) && (metric || s[i] != ':')) ++i;
  return s.substr(start, i - start);
}

// Reads a quoted label value at i (the opening quote), undoing \\, \" and \n.
Result<std::string> read_quoted(std::string_view s, std::size_t& i) {
  if (i >= s.size() || s[i] != '"') return fail(ErrorCode::Invalid, "label value must be quoted");
  ++i;
  std::string out;
  while (i < s.size() && s[i] != '"') {
    if (s[i] == '\\') {
      if (i + 1 >= s.size()) break;
      const char e = s[i + 1];
      if (e == 'n') {
        out += '\n';
      } else if (e == '\\' || e == '"') {
        out += e;
      } else {
        return fail(ErrorCode::Invalid, std::string("unknown escape \\") + e + " in label value");
      }
      i += 2;
    } else {
      out += s[i++];
    }
  }
  if (i >= s.size()) return fail(ErrorCode::Invalid, "unterminated label value");
  ++i;  // closing quote
  return out;
}

Result<Sample> parse_sample(std::string_view line) {
  Sample sample;
  std::size_t i = 0;
  const auto name = read_name(line, i, true);
  if (name.empty()) return fail(ErrorCode::Invalid, "expected a metric name");
  sample.name = std::string(name);
  const std::size_t after_name = i;
  skip_blanks(line, i);
  if (i < line.size() && line[i] == '{') {
    ++i;
    for (;;) {
      skip_blanks(line, i);
      if (i < line.size() && line[i] == '}') {
        ++i;
        break;
      }
      const auto key = read_name(line, i, false);
      if (key.empty()) return fail(ErrorCode::Invalid, "expected a label name");
      skip_blanks(line, i);
      if (i >= line.size() || line[i] != '=') {
        return fail(ErrorCode::Invalid, "expected = after label " + std::string(key));
      }
      ++i;
      skip_blanks(line, i);
      FED_ASSIGN_OR_RETURN(auto value, read_quoted(line, i));
      sample.labels.emplace_back(std::string(key), std::move(value));
      skip_blanks(line, i);
      if (i < line.size() && line[i] == ',') {
        ++i;
      } else if (i >= line.size() || line[i] != '}') {
        return fail(ErrorCode::Invalid, "expected , or } after a label");
      }
    }
  } else {
    i = after_name;
  }
  if (i >= line.size() || (line[i] != ' ' && line[i] != '\t')) {
    return fail(ErrorCode::Invalid, "expected a space and a value after the name");
  }
  skip_blanks(line, i);
  std::size_t end = i;
  while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
  const auto value = parse_prom_value(line.substr(i, end - i));
  if (!value)
    return fail(ErrorCode::Invalid, "bad value \"" + std::string(line.substr(i, end - i)) + "\"");
  sample.value = *value;
  i = end;
  skip_blanks(line, i);
  if (i < line.size()) {  // optional timestamp: an integer (ms)
    std::size_t j = i + (line[i] == '-' ? 1 : 0);
    if (j >= line.size()) return fail(ErrorCode::Invalid, "bad timestamp");
    for (; j < line.size(); ++j) {
      if (line[j] < '0' || line[j] > '9') {
        return fail(ErrorCode::Invalid, "unexpected text after the value");
      }
    }
  }
  return sample;
}

bool matches(const Sample& s, const std::vector<std::pair<std::string, std::string>>& match) {
  return std::all_of(match.begin(), match.end(), [&](const auto& kv) {
    const auto v = s.label(kv.first);
    return v && *v == kv.second;
  });
}

std::optional<MetricType> parse_type(std::string_view t) {
  if (t == "counter") return MetricType::Counter;
  if (t == "gauge") return MetricType::Gauge;
  if (t == "histogram") return MetricType::Histogram;
  if (t == "summary") return MetricType::Summary;
  if (t == "untyped") return MetricType::Untyped;
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> Sample::label(std::string_view key) const {
  for (const auto& [k, v] : labels) {
    if (k == key) return std::string_view(v);
  }
  return std::nullopt;
}

std::optional<double> parse_prom_value(std::string_view text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  if (text.empty()) return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || std::isnan(v) || std::isinf(v)) return std::nullopt;
  return v;
}

Result<Scrape> Scrape::parse(std::string_view text) {
  Scrape out;
  std::size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t i = 0;
    skip_blanks(line, i);
    line.remove_prefix(i);
    if (line.empty()) continue;
    auto where = [&](std::string_view what) {
      return fail(ErrorCode::Invalid, "line " + std::to_string(line_no) + ": " + std::string(what) +
                                          ": `" + std::string(line) + "`");
    };
    if (line[0] == '#') {
      // "# TYPE name type" declares a family; HELP and any other comment is skipped.
      if (line.rfind("# TYPE ", 0) == 0) {
        std::size_t j = 7;
        const auto name = read_name(line, j, true);
        skip_blanks(line, j);
        const auto type = parse_type(line.substr(j));
        if (name.empty() || !type) return where("malformed TYPE line");
        out.types_[std::string(name)] = *type;
      }
      continue;
    }
    auto sample = parse_sample(line);
    if (!sample) return where(sample.error().message());
    out.samples_.push_back(std::move(*sample));
  }
  return out;
}

MetricType Scrape::type(std::string_view family) const {
  const auto it = types_.find(family);
  return it == types_.end() ? MetricType::Untyped : it->second;
}

std::optional<double> Scrape::sum(
    std::string_view name, const std::vector<std::pair<std::string, std::string>>& match) const {
  std::optional<double> total;
  for (const auto& s : samples_) {
    if (s.name == name && matches(s, match)) total = total.value_or(0) + s.value;
  }
  return total;
}

std::optional<Histogram> Scrape::histogram(
    std::string_view name, const std::vector<std::pair<std::string, std::string>>& match) const {
  const std::string base(name);
  const auto count = sum(base + "_count", match);
  if (!count) return std::nullopt;
  Histogram h;
  h.count = *count;
  h.sum = sum(base + "_sum", match).value_or(0);
  std::map<double, double> by_le;
  const std::string bucket = base + "_bucket";
  for (const auto& s : samples_) {
    if (s.name != bucket || !matches(s, match)) continue;
    const auto le = s.label("le");
    const auto bound = le ? parse_prom_value(*le) : std::nullopt;
    if (bound) by_le[*bound] += s.value;
  }
  h.buckets.assign(by_le.begin(), by_le.end());
  return h;
}

std::vector<std::string> Scrape::label_values(std::string_view name, std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& s : samples_) {
    if (s.name != name) continue;
    if (const auto v = s.label(key)) out.emplace_back(*v);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace fed::etcdproxy::classifier
