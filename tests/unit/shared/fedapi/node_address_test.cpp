#include <doctest/doctest.h>

#include "shared/fedapi/node_address.hpp"

namespace fed::fedapi {

using nlohmann::json;

TEST_CASE("the gateway address: annotation, then ExternalIP, then InternalIP") {
  json node{{"metadata", {{"name", "node1"}}},
            {"status",
             {{"addresses",
               {{{"type", "Hostname"}, {"address", "node1"}},
                {{"type", "InternalIP"}, {"address", "172.30.1.11"}}}}}}};
  CHECK(gateway_address(node).value() == "172.30.1.11");
  node["status"]["addresses"].push_back({{"type", "ExternalIP"}, {"address", "203.0.113.7"}});
  CHECK(gateway_address(node).value() == "203.0.113.7");
  node["metadata"]["annotations"]["kubectl-fed.io/gateway-address"] = "172.31.0.1";
  CHECK(gateway_address(node).value() == "172.31.0.1");
  node["metadata"]["annotations"]["kubectl-fed.io/gateway-address"] = "gw.example";
  auto bad = gateway_address(node);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("is not an IPv4 address") != std::string::npos);
  CHECK(node_ipv4(node, "InternalIP").value() == "172.30.1.11");
  CHECK(node_ipv4(node, "ExternalIP").value() == "203.0.113.7");
  CHECK_FALSE(node_ipv4(node, "Hostname"));  // not an IPv4 address
  json bare{{"metadata", {{"name", "n"}}}};
  auto none = gateway_address(bare);
  REQUIRE_FALSE(none);
  CHECK(none.error().message().find("set the kubectl-fed.io/gateway-address annotation") !=
        std::string::npos);
}

}  // namespace fed::fedapi
