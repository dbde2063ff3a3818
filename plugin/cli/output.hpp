#pragma once
// Where commands print: results to stdout in the -o format, progress to stderr only on a
// terminal, so that `kubectl fed ... -o json | jq` and scripts see clean output.

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/cli/global_options.hpp"
#include "shared/util/yaml_text.hpp"

namespace fed::plugin {

// Rows under upper-case headers, printed with kubectl's column alignment.
struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
};

// Whether progress lines are shown.
enum class Progress { Shown, Hidden };

class Output final {
 public:
  Output(std::ostream& out, std::ostream& err, OutputFormat format, Progress progress);

  // Progress::Shown when stderr is a terminal (isatty(2)).
  static Progress progress_for_stderr();

  OutputFormat format() const { return format_; }

  // Prints `value` as JSON or YAML when -o asks for it; for -o table calls `human`, which
  // writes the human form (a table, "Key: value" lines).
  void print(const nlohmann::json& value, const std::function<void(std::ostream&)>& human);
  // Prints a table whatever -o says (for commands whose only form is a table).
  void print_table(const Table& table);
  // A one-line status for a person watching ("waiting for the agent on node-2..."), on
  // stderr, only when it is a terminal.
  void progress(std::string_view line);

  std::ostream& out() { return out_; }
  std::ostream& err() { return err_; }

 private:
  std::ostream& out_;
  std::ostream& err_;
  OutputFormat format_;
  Progress progress_;
};

// Columns separated by three spaces, each as wide as its widest cell; no trailing spaces.
std::string render_table(const Table& table);

// JSON with two-space indentation and a trailing newline, as kubectl -o json prints.
std::string to_json_text(const nlohmann::json& value);

// Block-style YAML (shared/util/yaml_text.hpp, which the agent uses for kubelet configs too).
using util::to_yaml_text;

}  // namespace fed::plugin
