#include "plugin/cli/output.hpp"

#include <doctest/doctest.h>

#include <sstream>

using fed::plugin::Output;
using fed::plugin::OutputFormat;
using fed::plugin::Progress;

TEST_CASE("tables align columns with three spaces and no trailing blanks") {
  fed::plugin::Table t{{"NAME", "STATUS", "AGE"},
                       {{"east", "Ready", "5d"}, {"west-cluster", "NotReady", ""}}};
  CHECK(fed::plugin::render_table(t) ==
        "NAME           STATUS     AGE\n"
        "east           Ready      5d\n"
        "west-cluster   NotReady\n");
  CHECK(fed::plugin::render_table({{"NAME"}, {}}) == "NAME\n");
}

TEST_CASE("YAML output quotes strings that would read back as other types") {
  const nlohmann::json v = {{"name", "east"},
                            {"replicas", 3},
                            {"ratio", 0.5},
                            {"ready", true},
                            {"none", nullptr},
                            {"flag", "true"},
                            {"count", "123"},
                            {"empty", ""},
                            {"version", "1.29"},
                            {"list", {"a", "no"}},
                            {"nested", {{"k", "v"}}},
                            {"obj", nlohmann::json::object()},
                            {"seq", nlohmann::json::array()},
                            {"sha", "0350469"}};
  CHECK(fed::plugin::to_yaml_text(v) ==
        "count: \"123\"\n"
        "empty: \"\"\n"
        "flag: \"true\"\n"
        "list:\n"
        "  - a\n"
        "  - \"no\"\n"
        "name: east\n"
        "nested:\n"
        "  k: v\n"
        "none: null\n"
        "obj: {}\n"
        "ratio: 0.5\n"
        "ready: true\n"
        "replicas: 3\n"
        "seq: []\n"
        "sha: \"0350469\"\n"  // YAML 1.2 would read an int
        "version: \"1.29\"\n");
}

TEST_CASE("print picks JSON, YAML or the human form by -o") {
  const nlohmann::json v = {{"a", 1}};
  const auto human = [](std::ostream& os) { os << "A: 1\n"; };
  for (auto [format, expected] :
       {std::pair{OutputFormat::Json, "{\n  \"a\": 1\n}\n"},
        std::pair{OutputFormat::Yaml, "a: 1\n"}, std::pair{OutputFormat::Table, "A: 1\n"}}) {
    std::ostringstream out, err;
    Output o(out, err, format, Progress::Hidden);
    o.print(v, human);
    CHECK(out.str() == expected);
    CHECK(err.str().empty());
  }
}

TEST_CASE("progress lines go to stderr, and only when shown") {
  std::ostringstream out, err;
  Output hidden(out, err, OutputFormat::Table, Progress::Hidden);
  hidden.progress("waiting...");
  CHECK(err.str().empty());
  Output shown(out, err, OutputFormat::Json, Progress::Shown);
  shown.progress("waiting...");
  CHECK(err.str() == "waiting...\n");
  CHECK(out.str().empty());
}
