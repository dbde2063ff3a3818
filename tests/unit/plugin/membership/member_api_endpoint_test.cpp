// Which address join records for a member's API server: the kubeconfig's unless it is
// loopback, then the one the member's API server advertises in EndpointSlice
// default/kubernetes (read here from real EndpointSlice bodies).

#include "plugin/membership/member_api_endpoint.hpp"

#include <doctest/doctest.h>

using namespace fed;
using namespace fed::plugin;
using nlohmann::json;

namespace {

// EndpointSlice default/kubernetes as kube-apiserver v1.33 writes it.
json apiserver_slice(const std::string& ip) {
  return json::parse(R"({"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1",
    "metadata":{"name":"kubernetes","namespace":"default",
                "labels":{"kubernetes.io/service-name":"kubernetes"}},
    "addressType":"IPv4",
    "endpoints":[{"addresses":[")" +
                     ip + R"("],"conditions":{"ready":true}}],
    "ports":[{"name":"https","protocol":"TCP","port":6443}]})");
}

std::function<Result<kube::ApiAddress>()> advertising(const std::string& ip) {
  return [ip] { return kube::advertised_api_address_of(apiserver_slice(ip)); };
}

std::function<Result<kube::ApiAddress>()> never_asked() {
  return []() -> Result<kube::ApiAddress> {
    FAIL("the member was asked for its address");
    return fail(ErrorCode::Internal, "unreachable");
  };
}

}  // namespace

TEST_CASE("loopback URLs: localhost, 127.0.0.0/8 and ::1, with or without a port") {
  CHECK(is_loopback_url("https://127.0.0.1:16002"));
  CHECK(is_loopback_url("https://127.1.2.3"));
  CHECK(is_loopback_url("https://localhost:6443/"));
  CHECK(is_loopback_url("https://LOCALHOST:6443"));
  CHECK(is_loopback_url("https://[::1]:6443"));
  CHECK_FALSE(is_loopback_url("https://172.31.0.102:6443"));
  CHECK_FALSE(is_loopback_url("https://[fd00::1]:6443"));
  CHECK_FALSE(is_loopback_url("https://api.c2.example.com:6443"));
  CHECK_FALSE(is_loopback_url("https://128.0.0.1"));
}

TEST_CASE("the advertised address: the first ready endpoint, the https port") {
  auto a = kube::advertised_api_address_of(apiserver_slice("172.31.0.102"));
  REQUIRE(a);
  CHECK(a->url() == "https://172.31.0.102:6443");
  json v6 = apiserver_slice("fd00::10");
  v6["addressType"] = "IPv6";
  CHECK(kube::advertised_api_address_of(v6)->url() == "https://[fd00::10]:6443");
  json not_ready = apiserver_slice("10.0.0.1");
  not_ready["endpoints"][0]["conditions"]["ready"] = false;
  auto none = kube::advertised_api_address_of(not_ready);
  REQUIRE_FALSE(none);
  CHECK(none.error().code() == ErrorCode::NotFound);
  CHECK(kube::advertised_api_address_of(json::object()).error().code() == ErrorCode::NotFound);
}

TEST_CASE("choose: the flag, else a routable kubeconfig server, as given") {
  CHECK(choose_member_api_endpoint("c2", "https://10.0.0.5:443", "https://127.0.0.1:16002",
                                   never_asked())
            ->url == "https://10.0.0.5:443");
  auto kept =
      choose_member_api_endpoint("c2", "", "https://api.c2.example.com:6443", never_asked());
  REQUIRE(kept);
  CHECK(kept->url == "https://api.c2.example.com:6443");
  CHECK(kept->note.empty());
}

TEST_CASE("choose: a loopback kubeconfig server gives way to the advertised address, said") {
  auto found =
      choose_member_api_endpoint("c2", "", "https://127.0.0.1:16002", advertising("172.31.0.102"));
  REQUIRE(found);
  CHECK(found->url == "https://172.31.0.102:6443");
  CHECK(found->note.find("https://127.0.0.1:16002 is this machine's loopback") !=
        std::string::npos);
  CHECK(found->note.find("using https://172.31.0.102:6443") != std::string::npos);
}

TEST_CASE("choose: nothing usable is refused naming --member-api-endpoint") {
  auto loop =
      choose_member_api_endpoint("c2", "", "https://127.0.0.1:16002", advertising("127.0.0.1"));
  REQUIRE_FALSE(loop);
  CHECK(loop.error().code() == ErrorCode::Invalid);
  CHECK(loop.error().message().find("loopback too") != std::string::npos);
  CHECK(loop.error().message().find("--member-api-endpoint") != std::string::npos);
  auto unread = choose_member_api_endpoint("c2", "", "https://localhost:6443", [] {
    return Result<kube::ApiAddress>(
        fail(ErrorCode::Permission, "reading EndpointSlice default/kubernetes: forbidden"));
  });
  REQUIRE_FALSE(unread);
  CHECK(unread.error().message().find("forbidden") != std::string::npos);
  CHECK(unread.error().message().find("--member-api-endpoint") != std::string::npos);
}
