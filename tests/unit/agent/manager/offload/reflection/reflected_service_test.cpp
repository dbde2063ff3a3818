#include "agent/manager/offload/reflection/reflected_service.hpp"

#include <doctest/doctest.h>

using fed::offload::host_endpoints;
using fed::offload::reflected_service;
using fed::offload::twin_endpoint_slice;
using fed::offload::twin_service;
using fed::offload::TwinTarget;
using nlohmann::json;

namespace {

const TwinTarget kServiceTarget{"c1", "shop", "shop-c1"};

json service() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "web", "namespace": "shop", "uid": "s-1", "labels": {"app": "web"}},
    "spec": {"type": "NodePort", "clusterIP": "10.101.0.20", "selector": {"app": "web"},
             "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP",
                        "nodePort": 30080}]}})");
}

json slice(const std::string& name, json endpoints) {
  return {{"metadata",
           {{"name", name},
            {"namespace", "shop"},
            {"labels", {{"kubernetes.io/service-name", "web"}}}}},
          {"addressType", "IPv4"},
          {"ports", json::array({{{"name", "http"}, {"port", 8080}, {"protocol", "TCP"}}})},
          {"endpoints", std::move(endpoints)}};
}

json endpoint(const std::string& ip, bool ready) {
  return {{"addresses", json::array({ip})}, {"conditions", {{"ready", ready}}}};
}

}  // namespace

TEST_CASE("which Services are reflected") {
  CHECK(reflected_service(service()));
  json headless = service();
  headless["spec"]["clusterIP"] = "None";
  CHECK_FALSE(reflected_service(headless));
  json external = service();
  external["spec"] = {{"type", "ExternalName"}, {"externalName", "example.org"}};
  CHECK_FALSE(reflected_service(external));
}

TEST_CASE("the twin Service: a ClusterIP Service with the ports, no selector, our labels") {
  const json twin = twin_service(service(), kServiceTarget);
  CHECK(twin["metadata"]["namespace"] == "shop-c1");
  CHECK(twin["metadata"]["name"] == "web");
  CHECK(twin["metadata"]["labels"]["kubectl-fed.io/origin-cluster"] == "c1");
  CHECK(twin["metadata"]["labels"]["kubectl-fed.io/origin-namespace"] == "shop");
  CHECK(twin["spec"]["type"] == "ClusterIP");
  CHECK_FALSE(twin["spec"].contains("selector"));
  CHECK_FALSE(twin["spec"].contains("clusterIP"));  // the member allocates its own
  CHECK(twin["spec"]["ports"] ==
        json::array({{{"name", "http"}, {"port", 80}, {"protocol", "TCP"}}}));
}

TEST_CASE("host endpoints: ready IPv4 addresses of every slice, once, sorted") {
  const auto eps = host_endpoints(
      {slice("web-a", json::array({endpoint("10.99.0.7", true), endpoint("10.241.0.5", false)})),
       slice("web-b", json::array({endpoint("10.241.1.3", true), endpoint("10.99.0.7", true)}))});
  CHECK(eps.addresses == std::vector<std::string>{"10.241.1.3", "10.99.0.7"});
  CHECK(eps.ports[0]["port"] == 8080);
  json v6 = slice("web-v6", json::array({endpoint("fd00::1", true)}));
  v6["addressType"] = "IPv6";
  CHECK(host_endpoints({v6}).addresses.empty());
}

TEST_CASE("the twin EndpointSlice: for kube-proxy, not the member's slice controller") {
  const json ports = json::array({{{"name", "http"}, {"port", 8080}, {"protocol", "TCP"}}});
  const json twin = twin_endpoint_slice("web", {"10.0.2.1", "10.243.0.3"}, ports, kServiceTarget);
  CHECK(twin["metadata"]["name"] == "web-kubectl-fed");
  CHECK(twin["metadata"]["labels"]["kubernetes.io/service-name"] == "web");
  CHECK(twin["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"] == "kubectl-fed.io");
  CHECK(twin["addressType"] == "IPv4");
  REQUIRE(twin["endpoints"].size() == 2);
  CHECK(twin["endpoints"][1]["addresses"][0] == "10.243.0.3");
  CHECK(twin["endpoints"][1]["conditions"]["ready"] == true);
  CHECK(twin["ports"] == ports);
}
