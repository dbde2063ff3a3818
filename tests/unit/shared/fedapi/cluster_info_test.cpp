#include <doctest/doctest.h>

#include "shared/fedapi/cluster_info.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

json configmap(const std::string& name, json data) {
  return json{{"metadata", {{"name", name}, {"namespace", "kubectl-fed-system"}}},
              {"data", std::move(data)}};
}

}  // namespace

TEST_CASE("the federation ConfigMap of a host and of a member") {
  auto host = parse_cluster_info(configmap("federation", {{"clusterID", "c1"},
                                                          {"role", "host"},
                                                          {"podCIDR", "10.241.0.0/16"},
                                                          {"serviceCIDR", "10.101.0.0/16"}}));
  REQUIRE(host);
  CHECK(host->cluster_id == "c1");
  CHECK(host->role == ClusterRole::Host);
  CHECK(host->pod_cidr.str() == "10.241.0.0/16");
  CHECK(host->federation_id.empty());

  auto member = parse_cluster_info(configmap("federation", {{"clusterID", "c2"},
                                                            {"role", "member"},
                                                            {"podCIDR", "10.242.0.0/16"},
                                                            {"serviceCIDR", "10.102.0.0/16"},
                                                            {"federationID", "c1"}}));
  REQUIRE(member);
  CHECK(member->role == ClusterRole::Member);
  CHECK(member->federation_id == "c1");
}

TEST_CASE("a broken federation ConfigMap names the key") {
  json good{{"clusterID", "c2"},
            {"role", "member"},
            {"podCIDR", "10.242.0.0/16"},
            {"serviceCIDR", "10.102.0.0/16"},
            {"federationID", "c1"}};
  auto broken = [&](const char* key, json value) {
    json data = good;
    if (value.is_null()) {
      data.erase(key);
    } else {
      data[key] = value;
    }
    auto r = parse_cluster_info(configmap("federation", data));
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == ErrorCode::Invalid);
    return r.error().message();
  };
  CHECK(broken("clusterID", nullptr).find("data.clusterID is missing") != std::string::npos);
  CHECK(broken("role", "spoke").find("data.role must be host or member") != std::string::npos);
  CHECK(broken("podCIDR", "10.242.0.1/16").find("data.podCIDR") != std::string::npos);
  CHECK(broken("federationID", nullptr).find("data.federationID is missing on a member") !=
        std::string::npos);
}

TEST_CASE("the gateway ConfigMap") {
  auto gw = parse_gateway_info(
      configmap("gateway", {{"node", "node1"},
                            {"endpoint", "172.31.0.2:51820"},
                            {"publicKey", "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg="}}));
  REQUIRE(gw);
  CHECK(gw->endpoint == "172.31.0.2:51820");
  auto missing = parse_gateway_info(configmap("gateway", {{"node", "node1"}}));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().find("data.endpoint is missing") != std::string::npos);
}

}  // namespace fed::federation
