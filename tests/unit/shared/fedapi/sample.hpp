#pragma once
// Loads a manifest of manifests/samples/ as JSON, for tests that check the API types and the
// IPAM against the files users see, and the API types' round trip through their JSON.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/manifest.hpp"

namespace fed::test {

// The single document of manifests/samples/<name>; fails the test when it cannot be read.
inline nlohmann::json load_sample(const std::string& name) {
  const std::string path = std::string(FED_SOURCE_DIR) + "/manifests/samples/" + name;
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = fedapi::parse_manifests(text.str(), path);
  REQUIRE_MESSAGE(docs.has_value(), (docs ? "" : docs.error().message()));
  REQUIRE(docs->size() == 1);
  return docs->front();
}

// Decodes `part` of `object` as T, encodes it again and checks nothing was lost or added.
template <typename T>
T round_trip(const nlohmann::json& object, const char* part) {
  auto decoded = fedapi::decode<T>(object.at(part), part);
  REQUIRE_MESSAGE(decoded.has_value(), (decoded ? "" : decoded.error().message()));
  CHECK(nlohmann::json(*decoded) == object.at(part));
  return *decoded;
}

}  // namespace fed::test
