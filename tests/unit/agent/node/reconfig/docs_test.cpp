// docs/RECONFIGURE.md's tables are the allow-list and the layout table in prose: each row must
// match the code, and no row may name something the code does not have.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "shared/reconfig/allow_list.hpp"
#include "shared/reconfig/kubelet_locations.hpp"
#include "shared/util/read_file.hpp"
#include "shared/util/strings.hpp"

using namespace fed::reconfig;

namespace {

std::string doc() {
  auto text = fed::util::read_file(std::string(FED_SOURCE_DIR) + "/docs/RECONFIGURE.md");
  REQUIRE_MESSAGE(text.has_value(), text.error().message());
  return *text;
}

// The table rows ("| `name` | ...") of the section whose heading is `heading`.
std::vector<std::string> rows(const std::string& text, std::string_view heading) {
  const auto start = text.find("\n## " + std::string(heading) + "\n");
  REQUIRE(start != std::string::npos);
  const auto end = text.find("\n## ", start + 1);
  std::vector<std::string> out;
  for (auto& line : fed::util::split(text.substr(start, end - start), '\n')) {
    if (line.rfind("| `", 0) == 0) out.push_back(line);
  }
  return out;
}

// The row whose first cell is `name` in backquotes; empty when there is none.
std::string row_of(const std::vector<std::string>& table, std::string_view name) {
  for (const auto& row : table) {
    if (row.rfind("| `" + std::string(name) + "` |", 0) == 0) return row;
  }
  return "";
}

std::string_view type_word(FieldType type) {
  switch (type) {
    case FieldType::Enum:
      return "| enum |";
    case FieldType::CpuSet:
      return "| CPU list |";
    case FieldType::Bool:
      return "| bool |";
    case FieldType::Int:
      return "| integer |";
    case FieldType::Duration:
      return "| duration |";
    case FieldType::Quantity:
      return "| quantity |";
    case FieldType::ResourceMap:
      return "| map |";
    case FieldType::GateMap:
      return "| feature gates |";
  }
  return "?";
}

}  // namespace

TEST_CASE("docs/RECONFIGURE.md's allow-list table is the code's allow-list") {
  const auto table = rows(doc(), "Allow-list");
  CHECK(table.size() == allowed_fields().size());
  for (const auto& spec : allowed_fields()) {
    INFO(spec.name);
    const std::string row = row_of(table, spec.name);
    REQUIRE_FALSE(row.empty());
    CHECK(row.find(type_word(spec.type)) != std::string::npos);
    for (auto choice : spec.choices) CHECK(row.find(choice) != std::string::npos);
    for (auto file : spec.state_files) CHECK(row.find(file) != std::string::npos);
    if (spec.state_files.empty()) CHECK(row.find("_manager_state") == std::string::npos);
    if (spec.type == FieldType::Int) {
      CHECK(row.find(std::to_string(spec.min) + "–" + std::to_string(spec.max)) !=
            std::string::npos);
    }
  }
}

TEST_CASE("docs/RECONFIGURE.md lists exactly the kubelet feature gates the code accepts") {
  const std::string text = doc();
  const std::string marker = "**Kubelet feature gates accepted**:";
  const auto start = text.find(marker);
  REQUIRE(start != std::string::npos);
  const auto end = text.find(".\n", start);
  REQUIRE(end != std::string::npos);
  std::vector<std::string> listed;
  for (auto& name :
       fed::util::split(text.substr(start + marker.size(), end - start - marker.size()), ',')) {
    listed.emplace_back(fed::util::trim(name));
  }
  CHECK(listed ==
        std::vector<std::string>(kubelet_feature_gates().begin(), kubelet_feature_gates().end()));
}

TEST_CASE("docs/RECONFIGURE.md's distribution table is known_layouts()") {
  const auto table = rows(doc(), "Which file is rewritten");
  CHECK(table.size() == known_layouts().size());
  for (const auto& layout : known_layouts()) {
    INFO(layout.distribution);
    const std::string row = row_of(table, layout.distribution);
    REQUIRE_FALSE(row.empty());
    const auto cells = fed::util::split(row, '|');
    REQUIRE(cells.size() >= 7);
    const auto cell = [](std::string_view c, std::string_view want) {
      return fed::util::trim(c) == (want.empty() ? "—" : want);
    };
    CHECK(cell(cells[2], layout.config_file));
    CHECK(cell(cells[3], layout.config_dir));
    CHECK(cell(cells[4], layout.root_dir));
    CHECK(cell(cells[5], layout.service));
  }
}
