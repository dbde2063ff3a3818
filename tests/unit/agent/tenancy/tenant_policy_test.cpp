#include "agent/tenancy/tenant_policy.hpp"

#include <doctest/doctest.h>

using fed::ErrorCode;
using fed::tenancy::TenantPolicy;
using nlohmann::json;

TEST_CASE("tenancy: resource lists parse, and a bad one names the flag and the pair") {
  auto parsed =
      fed::tenancy::parse_resource_list("requests.cpu=2, requests.memory=4Gi,pods=50", "--quota");
  REQUIRE(parsed);
  CHECK(parsed->at("requests.cpu") == "2");
  CHECK(parsed->at("requests.memory") == "4Gi");
  CHECK(parsed->at("pods") == "50");
  CHECK(fed::tenancy::parse_resource_list("", "--quota")->empty());

  auto no_eq = fed::tenancy::parse_resource_list("cpu", "--quota");
  REQUIRE_FALSE(no_eq);
  CHECK(no_eq.error().code() == ErrorCode::Invalid);
  CHECK(no_eq.error().message().find("--quota: \"cpu\" is not NAME=QUANTITY") != std::string::npos);
  auto bad = fed::tenancy::parse_resource_list("cpu=lots", "--default-request");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("--default-request: cpu=lots is not a Kubernetes quantity") !=
        std::string::npos);
}

TEST_CASE("tenancy: the consumer of a replica is its origin-cluster label") {
  CHECK(fed::tenancy::consumer_of(
            {{"metadata", {{"labels", {{"kubectl-fed.io/origin-cluster", "c1"}}}}}}) == "c1");
  CHECK_FALSE(fed::tenancy::consumer_of({{"metadata", {{"name", "default"}}}}));
  CHECK_FALSE(fed::tenancy::consumer_of(
      {{"metadata", {{"labels", {{"kubectl-fed.io/origin-cluster", ""}}}}}}));
}

TEST_CASE("tenancy: the provider's objects in a replica follow the policy") {
  TenantPolicy policy;
  CHECK_FALSE(fed::tenancy::resource_quota("shop-c1", "c1", policy));
  CHECK_FALSE(fed::tenancy::limit_range("shop-c1", "c1", policy));
  CHECK_FALSE(fed::tenancy::network_policy("shop-c1", "c1", policy));

  policy.quota = {{"requests.cpu", "2"}, {"pods", "10"}};
  policy.default_request = {{"cpu", "50m"}};
  policy.local_pod_cidr = "10.244.0.0/16";
  auto quota = fed::tenancy::resource_quota("shop-c1", "c1", policy);
  REQUIRE(quota);
  CHECK((*quota)["kind"] == "ResourceQuota");
  CHECK((*quota)["metadata"]["name"] == "kubectl-fed-tenant");
  CHECK((*quota)["metadata"]["namespace"] == "shop-c1");
  CHECK((*quota)["metadata"]["labels"]["kubectl-fed.io/origin-cluster"] == "c1");
  CHECK((*quota)["spec"]["hard"] == json{{"requests.cpu", "2"}, {"pods", "10"}});

  auto limits = fed::tenancy::limit_range("shop-c1", "c1", policy);
  REQUIRE(limits);
  CHECK((*limits)["spec"]["limits"][0]["type"] == "Container");
  CHECK((*limits)["spec"]["limits"][0]["defaultRequest"] == json{{"cpu", "50m"}});

  auto isolation = fed::tenancy::network_policy("shop-c1", "c1", policy);
  REQUIRE(isolation);
  CHECK((*isolation)["apiVersion"] == "networking.k8s.io/v1");
  CHECK((*isolation)["spec"]["podSelector"] == json::object());
  CHECK((*isolation)["spec"]["policyTypes"] == json{"Ingress"});
  const json from = (*isolation)["spec"]["ingress"][0]["from"];
  REQUIRE(from.size() == 2);
  CHECK(from[0]["namespaceSelector"]["matchLabels"]["kubectl-fed.io/origin-cluster"] == "c1");
  CHECK(from[1]["ipBlock"]["cidr"] == "0.0.0.0/0");
  CHECK(from[1]["ipBlock"]["except"] == json{"10.244.0.0/16"});
}
