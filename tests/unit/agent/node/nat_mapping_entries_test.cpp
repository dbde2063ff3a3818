#include <doctest/doctest.h>

#include "agent/node/nat_mapping_entries.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

kube::ObjectPtr object(const std::string& name, const std::string& version, json mappings) {
  json o{{"metadata", {{"name", name}, {"generation", 3}}},
         {"spec", {{"clusterID", "c2"}, {"mappings", std::move(mappings)}}}};
  if (!version.empty()) o["metadata"]["resourceVersion"] = version;
  return std::make_shared<const json>(std::move(o));
}

}  // namespace

TEST_CASE("a NatMapping parsed: its name, peer, generation and sorted entries") {
  auto nm = parse_nat_mapping(
      *object("c2.10-0-0-0-24", "", {{"10.0.0.9", "10.1.3.4"}, {"10.0.0.5", "10.1.7.7"}}));
  CHECK(nm->name == "c2.10-0-0-0-24");
  CHECK(nm->peer == "c2");
  CHECK(nm->generation == 3);
  CHECK(nm->error.empty());
  REQUIRE(nm->entries.size() == 2);
  CHECK(nm->entries[0].external_ip.str() == "10.0.0.5");
  CHECK(nm->entries[1].endpoint_ip.str() == "10.1.3.4");
}

TEST_CASE("the parse cache parses an object once per resourceVersion and forgets deleted ones") {
  NatMappingParseCache cache;
  auto a1 = object("c2.a", "7", {{"10.0.0.1", "10.1.0.1"}});
  auto b = object("c2.b", "8", {{"10.0.1.1", "10.1.0.2"}});
  auto first = cache.entries({a1, b});
  REQUIRE(first.size() == 2);

  SUBCASE("the same versions, even as new objects (a relist): the same parse") {
    auto again = cache.entries({object("c2.a", "7", {{"10.0.0.1", "10.1.0.1"}}), b});
    CHECK(again[0] == first[0]);
    CHECK(again[1] == first[1]);
  }
  SUBCASE("a new version: parsed again, with its new entries") {
    auto a2 = object("c2.a", "9", {{"10.0.0.1", "10.1.0.1"}, {"10.0.0.2", "10.1.0.9"}});
    auto again = cache.entries({a2, b});
    CHECK(again[0] != first[0]);
    CHECK(again[0]->entries.size() == 2);
    CHECK(again[1] == first[1]);
  }
  SUBCASE("deleted, then back at the version it had: parsed again (nothing stale kept)") {
    CHECK(cache.entries({b}).size() == 1);
    auto again = cache.entries({a1, b});
    CHECK(again[0] != first[0]);
    CHECK(again[0]->entries == first[0]->entries);
  }
  SUBCASE("no resourceVersion (a file, a test): parsed every time") {
    auto bare = object("c2.c", "", {{"10.0.2.1", "10.1.0.3"}});
    auto one = cache.entries({bare});
    auto two = cache.entries({bare});
    CHECK(one[0] != two[0]);
  }
}

TEST_CASE("a malformed entry: no entries, and an error naming the object and the field") {
  auto nm = parse_nat_mapping(*object("c2.a", "1", {{"10.0.0.1", "nope"}}));
  CHECK(nm->entries.empty());
  CHECK(nm->error == "NatMapping c2.a spec.mappings.10.0.0.1: not an IPv4 address pair");
  auto no_peer = parse_nat_mapping(json{{"metadata", {{"name", "x"}}}, {"spec", json::object()}});
  CHECK(no_peer->peer.empty());
  CHECK(no_peer->entries.empty());
}

}  // namespace fed::federation
