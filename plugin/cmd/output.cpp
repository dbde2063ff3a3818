#include "cmd/output.hpp"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <ostream>
#include <regex>

namespace fed::plugin {
namespace {

// True when YAML 1.1 or 1.2 would resolve the plain scalar `s` to something other than a
// string (bool, null, number, timestamp-like), or when it cannot be plain at all.
bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  static const std::regex kSpecial(
      "^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|"
      "Off|OFF|y|Y|n|N|[-+]?(?:[0-9][0-9_]*)?\\.?[0-9]*(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|"
      "0o?[0-7_]+|0b[01_]+|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)|[0-9]{4}-[0-9]{2}-[0-9]{2}.*|"
      "[0-9:]+)$");
  return std::regex_match(s, kSpecial);
}

void emit(YAML::Emitter& e, const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object:
      if (v.empty()) {
        e << YAML::Flow << YAML::BeginMap << YAML::EndMap;  // "{}" on the key's line
        break;
      }
      e << YAML::BeginMap;
      for (const auto& [key, value] : v.items()) {
        e << YAML::Key;
        if (needs_quotes(key)) e << YAML::DoubleQuoted;
        e << key << YAML::Value;
        emit(e, value);
      }
      e << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      if (v.empty()) {
        e << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        break;
      }
      e << YAML::BeginSeq;
      for (const auto& item : v) emit(e, item);
      e << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (needs_quotes(s)) e << YAML::DoubleQuoted;
      e << s;
      break;
    }
    case nlohmann::json::value_t::boolean:
      e << (v.get<bool>() ? "true" : "false");
      break;
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      e << YAML::Null;
      break;
    default:  // numbers: nlohmann's own formatting round-trips
      e << v.dump();
      break;
  }
}

}  // namespace

Output::Output(std::ostream& out, std::ostream& err, OutputFormat format, Progress progress)
    : out_(out), err_(err), format_(format), progress_(progress) {}

Progress Output::progress_for_stderr() {
  return ::isatty(STDERR_FILENO) == 1 ? Progress::Shown : Progress::Hidden;
}

void Output::print(const nlohmann::json& value, const std::function<void(std::ostream&)>& human) {
  switch (format_) {
    case OutputFormat::Json:
      out_ << to_json_text(value);
      break;
    case OutputFormat::Yaml:
      out_ << to_yaml_text(value);
      break;
    case OutputFormat::Table:
      human(out_);
      break;
  }
  out_.flush();
}

void Output::print_table(const Table& table) {
  out_ << render_table(table) << std::flush;
}

void Output::progress(std::string_view line) {
  if (progress_ == Progress::Shown) err_ << line << "\n" << std::flush;
}

std::string render_table(const Table& table) {
  std::vector<std::size_t> widths(table.headers.size(), 0);
  const auto measure = [&](const std::vector<std::string>& row) {
    if (row.size() > widths.size()) widths.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  };
  measure(table.headers);
  for (const auto& row : table.rows) measure(row);
  std::string out;
  const auto line = [&](const std::vector<std::string>& row) {
    std::string text;
    for (std::size_t i = 0; i < row.size(); ++i) {
      text += row[i];
      if (i + 1 < row.size()) text += std::string(widths[i] - row[i].size() + 3, ' ');
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  if (!table.headers.empty()) line(table.headers);
  for (const auto& row : table.rows) line(row);
  return out;
}

std::string to_json_text(const nlohmann::json& value) {
  return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string to_yaml_text(const nlohmann::json& value) {
  YAML::Emitter e;
  e.SetIndent(2);
  e.SetSeqFormat(YAML::Block);
  e.SetMapFormat(YAML::Block);
  e.SetNullFormat(YAML::LowerNull);  // "null", as kubectl prints it
  emit(e, value);
  return std::string(e.c_str()) + "\n";
}

}  // namespace fed::plugin
