#include "plugin/cli/output.hpp"

#include <unistd.h>

#include <algorithm>
#include <ostream>

#include "shared/util/json_text.hpp"

namespace fed::plugin {

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
  return util::json_text(value, 2) + "\n";
}

}  // namespace fed::plugin
