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
