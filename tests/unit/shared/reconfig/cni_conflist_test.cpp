#include "shared/reconfig/cni_conflist.hpp"

#include <doctest/doctest.h>

using fed::reconfig::parse_conflist;

TEST_CASE("cni conflist: a bridge list with host-local ranges") {
  auto list = parse_conflist(R"({"cniVersion": "1.0.0", "name": "alt", "plugins": [
      {"type": "bridge", "bridge": "cni1", "ipam": {"type": "host-local",
        "ranges": [[{"subnet": "10.250.0.0/24"}], [{"subnet": "10.251.0.0/24"}]]}},
      {"type": "portmap", "capabilities": {"portMappings": true}}]})",
                             "alt.conflist");
  REQUIRE(list);
  CHECK(list->name == "alt");
  CHECK(list->plugin_types == std::vector<std::string>{"bridge", "portmap"});
  CHECK(list->subnets == std::vector<std::string>{"10.250.0.0/24", "10.251.0.0/24"});
}

TEST_CASE("cni conflist: the older subnet field, and IPAM that is not host-local") {
  auto old = parse_conflist(R"({"cniVersion": "0.4.0", "name": "n", "plugins": [
      {"type": "bridge", "ipam": {"type": "host-local", "subnet": "10.9.0.0/16"}}]})",
                            "f");
  REQUIRE(old);
  CHECK(old->subnets == std::vector<std::string>{"10.9.0.0/16"});
  auto dhcp = parse_conflist(
      R"({"cniVersion": "1.0.0", "name": "n", "plugins": [{"type": "macvlan", "ipam": {"type": "dhcp"}}]})",
      "f");
  REQUIRE(dhcp);
  CHECK(dhcp->subnets.empty());
}

TEST_CASE("cni conflist: what the runtime would refuse is refused, naming the field") {
  auto message = [](const char* text) {
    auto list = parse_conflist(text, "alt.conflist");
    REQUIRE_FALSE(list);
    CHECK(list.error().code() == fed::ErrorCode::Invalid);
    CHECK(list.error().message().rfind("alt.conflist: ", 0) == 0);
    return list.error().message();
  };
  CHECK(message("{").find("not a JSON object") != std::string::npos);
  CHECK(message(R"({"name": "n", "plugins": [{"type": "bridge"}]})").find("cniVersion") !=
        std::string::npos);
  CHECK(message(R"({"cniVersion": "1.0.0", "plugins": [{"type": "bridge"}]})").find("name") !=
        std::string::npos);
  CHECK(message(R"({"cniVersion": "1.0.0", "name": "n", "type": "bridge"})").find("plugins") !=
        std::string::npos);
  CHECK(message(R"({"cniVersion": "1.0.0", "name": "n", "plugins": [{"bridge": "x"}]})")
            .find("plugins[0].type") != std::string::npos);
  // Found by fuzz_manifests: members of the wrong type were read with json's value(), which
  // throws, so `kubectl fed reconfigure` and `fed-agent cni-switch` stopped with "unexpected
  // error: [json.exception.type_error.302] ..." instead of naming the field to fix.
  CHECK(message(R"({"cniVersion": "1.0.0", "name": "n", "plugins": [{"type": {"a": 1}}]})")
            .find("plugins[0].type is missing or not a string") != std::string::npos);
  CHECK(message(R"({"cniVersion": "1.0.0", "name": 7, "plugins": [{"type": "bridge"}]})")
            .find("name is missing or not a string") != std::string::npos);
  auto odd_ipam = parse_conflist(
      R"({"cniVersion": "1.0.0", "name": "n", "plugins": [{"type": "b", "ipam": {"type": []}}]})",
      "f");
  REQUIRE(odd_ipam);
  CHECK(odd_ipam->subnets.empty());
}
