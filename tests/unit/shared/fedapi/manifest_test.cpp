#include "shared/fedapi/manifest.hpp"

#include <doctest/doctest.h>

using fed::fedapi::parse_manifests;

TEST_CASE("manifests are typed the way kubectl reads them") {
  auto docs = parse_manifests(R"(---
kind: A
spec:
  replicas: 3
  ratio: 0.5
  enabled: true
  none: ~
  quoted: "4"
  version: 1.33.13
  cidr: 10.0.0.0/16
  list: [a, "b"]
  10.1.0.1: 10.243.0.5
---
---
kind: B
)");
  REQUIRE(docs.has_value());
  REQUIRE(docs->size() == 2);
  const auto& spec = (*docs)[0]["spec"];
  CHECK(spec["replicas"] == 3);
  CHECK(spec["ratio"] == 0.5);
  CHECK(spec["enabled"] == true);
  CHECK(spec["none"].is_null());
  CHECK(spec["quoted"] == "4");
  CHECK(spec["version"] == "1.33.13");
  CHECK(spec["cidr"] == "10.0.0.0/16");
  CHECK(spec["list"] == nlohmann::json::array({"a", "b"}));
  CHECK(spec["10.1.0.1"] == "10.243.0.5");
  CHECK((*docs)[1]["kind"] == "B");
}

TEST_CASE("bad manifests are Invalid errors that name the input") {
  auto broken = parse_manifests("kind: [unclosed", "x.yaml");
  REQUIRE_FALSE(broken.has_value());
  CHECK(broken.error().code() == fed::ErrorCode::Invalid);
  CHECK(broken.error().message().find("x.yaml: not valid YAML") != std::string::npos);
  auto scalar = parse_manifests("just text", "y.yaml");
  REQUIRE_FALSE(scalar.has_value());
  CHECK(scalar.error().message().find("y.yaml: document 1 is not a mapping") != std::string::npos);
}

TEST_CASE("numbers in every spelling the core schema types, the rest kept as text") {
  auto docs = parse_manifests(
      "a: -12\nb: +7\nc: .5\nd: 5.\ne: 1e3\nf: -2.5E-2\ng: 1e\nh: .\ni: 1.2.3\nj: 1e999\n"
      "k: 99999999999999999999\nl: '-'\n");
  REQUIRE(docs);
  const auto& d = docs->front();
  CHECK(d["a"] == -12);
  CHECK(d["b"] == 7);
  CHECK(d["c"] == 0.5);
  CHECK(d["d"] == 5.0);
  CHECK(d["e"] == 1000.0);
  CHECK(d["f"] == -0.025);
  CHECK(d["g"] == "1e");
  CHECK(d["h"] == ".");
  CHECK(d["i"] == "1.2.3");
  CHECK(d["j"] == "1e999");  // beyond a double
  CHECK(d["k"] == "99999999999999999999");
  CHECK(d["l"] == "-");
}

// Found by the manifests fuzz target: aliases of aliases expanded without bound (the process
// grew past 2 GiB), a long plain scalar overflowed the stack inside std::regex, and a stream
// starting with ',' hung yaml-cpp's LoadAll.
TEST_CASE("a document that expands without bound or nests too deep is refused, not expanded") {
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c, ++prev) {
    laughs += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
              prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
              ", *" + prev + "]\n";
  }
  auto bomb = parse_manifests(laughs, "bomb.yaml");
  REQUIRE_FALSE(bomb);
  CHECK(bomb.error().code() == fed::ErrorCode::Invalid);
  CHECK(bomb.error().message().find("bomb.yaml: refused at line ") == 0);
  CHECK(bomb.error().message().find("the text expands to more than 1048576 values") !=
        std::string::npos);

  std::string deep = "a: " + std::string(300, '[') + std::string(300, ']') + "\n";
  auto nested = parse_manifests(deep, "deep.yaml");
  REQUIRE_FALSE(nested);
  CHECK(nested.error().message().find("nested deeper than 256 levels") != std::string::npos);

  // yaml-cpp's LoadAll looped forever, allocating, on a stream it could not advance in.
  for (const char* stuck : {",", ",\xdf\xce", "a: 1\n---\n,\n"}) {
    auto refused = parse_manifests(stuck, "stuck.yaml");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message().find("stuck.yaml: not valid YAML at line ") == 0);
  }

  auto long_scalar = parse_manifests("a: " + std::string(200000, '7') + "x\n");
  REQUIRE(long_scalar);
  CHECK(long_scalar->front()["a"].get<std::string>().size() == 200001);
}

// Found by hand beside the manifests fuzz run: the budget was per document, so a stream of
// documents each just under it grew without bound (2.7 kB took 650 MB).
TEST_CASE("the expansion budget covers every document of a stream together") {
  // About 680 000 values: under the budget alone, over it twice.
  std::string doc = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'e'; ++c, ++prev) {
    doc += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) doc += std::string(i ? ", *" : "*") + prev;
    doc += "]\n";
  }
  doc += "f: [*e, *e, *e, *e, *e]\n";
  auto one = parse_manifests(doc, "one.yaml");
  REQUIRE(one);
  CHECK(one->front()["f"].size() == 5);
  auto two = parse_manifests(doc + "---\n" + doc, "two.yaml");
  REQUIRE_FALSE(two);
  CHECK(two.error().message().find("two.yaml: refused at line ") == 0);
  CHECK(two.error().message().find("the text expands to more than 1048576 values") !=
        std::string::npos);
}

TEST_CASE("anchors, aliases, explicit string tags and scalar keys") {
  auto docs = parse_manifests(
      "base: &b {cpu: 1, list: [a, b]}\ncopy: *b\nport: !!str 8080\n1: one\ntrue: yes\n");
  REQUIRE(docs);
  const auto& d = docs->front();
  CHECK(d["copy"] == d["base"]);
  CHECK(d["copy"]["list"] == nlohmann::json::array({"a", "b"}));
  CHECK(d["port"] == "8080");
  CHECK(d["1"] == "one");
  CHECK(d["true"] == "yes");
  auto unknown = parse_manifests("a: *nope\n", "u.yaml");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message().find("u.yaml: not valid YAML") == 0);
  auto map_key = parse_manifests("? [a]\n: b\n", "k.yaml");
  REQUIRE_FALSE(map_key);
  CHECK(map_key.error().message().find("a map key must be a scalar") != std::string::npos);
}
