#include "shared/util/yaml_text.hpp"

#include <doctest/doctest.h>

#include <string>

#include "shared/fedapi/manifest.hpp"

using fed::util::to_yaml_text;
using nlohmann::json;

namespace {

// The YAML line for {"v": value}.
std::string line(const json& value) {
  return to_yaml_text(json{{"v", value}});
}

// Parses `text` back with the manifest reader (the same typing the agent uses for kubelet files).
json read_back(const std::string& text) {
  auto docs = fed::fedapi::parse_manifests(text, "test");
  REQUIRE_MESSAGE(docs.has_value(), docs.error().message());
  REQUIRE(docs->size() == 1);
  return docs->front();
}

}  // namespace

TEST_CASE("strings a YAML reader would type as something else are double-quoted") {
  for (const char* s : {"true",
                        "false",
                        "True",
                        "yes",
                        "no",
                        "on",
                        "off",
                        "y",
                        "N",
                        "null",
                        "Null",
                        "~",
                        "123",
                        "-1",
                        "+5",
                        "0",
                        "007",
                        "1.5",
                        ".5",
                        "1e3",
                        "0x1F",
                        "0o17",
                        "0b101",
                        ".inf",
                        "-.Inf",
                        ".nan",
                        "1:30",
                        "2024-05-01",
                        "2024-05-01T12:00:00Z"}) {
    INFO(s);
    CHECK(line(s) == "v: \"" + std::string(s) + "\"\n");
  }
  CHECK(line("") == "v: \"\"\n");
}

TEST_CASE("ordinary strings, numbers, booleans and null stay plain") {
  for (const char* s :
       {"static", "0-3,6", "0,2", "10s", "1m30s", "500m", "1Gi", "5%",
        "kubelet.config.k8s.io/v1beta1", "memory.available", "/var/lib/kubelet", "nonexistent"}) {
    INFO(s);
    CHECK(line(s) == "v: " + std::string(s) + "\n");
  }
  CHECK(line(true) == "v: true\n");
  CHECK(line(false) == "v: false\n");
  CHECK(line(nullptr) == "v: null\n");
  CHECK(line(110) == "v: 110\n");
  CHECK(line(-1) == "v: -1\n");
  CHECK(line(0.5) == "v: 0.5\n");
}

TEST_CASE("keys that look like other types are quoted too") {
  CHECK(to_yaml_text(json{{"true", 1}, {"123", "x"}, {"", "e"}}) ==
        "\"\": e\n\"123\": x\n\"true\": 1\n");
}

TEST_CASE("nested maps and lists are block style, two spaces; empty ones are {} and []") {
  const json v = {{"authentication", {{"anonymous", {{"enabled", false}}}}},
                  {"clusterDNS", {"10.96.0.10", "10.96.0.11"}},
                  {"empty", json::object()},
                  {"evictionHard", {{"memory.available", "100Mi"}}},
                  {"list", json::array()},
                  {"matrix", {{1, 2}, json::array(), {{{"k", "null"}}}}},
                  {"after", {{"still", "block"}}}};
  CHECK(to_yaml_text(v) ==
        "after:\n"
        "  still: block\n"
        "authentication:\n"
        "  anonymous:\n"
        "    enabled: false\n"
        "clusterDNS:\n"
        "  - 10.96.0.10\n"
        "  - 10.96.0.11\n"
        "empty: {}\n"
        "evictionHard:\n"
        "  memory.available: 100Mi\n"
        "list: []\n"
        "matrix:\n"
        "  -\n"
        "    - 1\n"
        "    - 2\n"
        "  - []\n"
        "  -\n"
        "    - k: \"null\"\n");
}

TEST_CASE("the text reads back as the same JSON, including strings YAML treats specially") {
  const json v = {
      {"kind", "KubeletConfiguration"},
      {"strings", {"true",        "123",
                   "null",        "",
                   "~",           "1.5",
                   "0",           "yes",
                   "a: b",        "# not a comment",
                   " lead",       "trail ",
                   "- dash",      "*star",
                   "&anchor",     "!tag",
                   "{flow}",      "[seq]",
                   "quote\"d",    "it's",
                   "multi\nline", "tab\there",
                   "back\\slash", "ünïcödé",
                   "@at",         "`tick`",
                   "%pct",        "?q",
                   "|pipe",       ">gt",
                   "a,b",         "key: value # c"}},
      {"numbers", {0, -1, 110, 4194304, 0.25, 1e100}},
      {"flags", {true, false, nullptr}},
      {"nested", {{"map", {{"deep", {{"deeper", json::array()}}}}}, {"x", json::object()}}}};
  const std::string text = to_yaml_text(v);
  CHECK(read_back(text) == v);
}
