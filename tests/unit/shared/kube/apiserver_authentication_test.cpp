#include <doctest/doctest.h>

#include "shared/kube/apiserver_authentication.hpp"

namespace fed::kube {

using nlohmann::json;

TEST_CASE("the API server's authentication ConfigMap: both CAs and the front-proxy names") {
  auto a = parse_apiserver_authentication(
      json{{"data",
            {{"client-ca-file", "CLIENT PEM"},
             {"requestheader-client-ca-file", "PROXY PEM"},
             {"requestheader-allowed-names", R"(["front-proxy-client","aggregator"])"},
             {"requestheader-username-headers", R"(["X-Remote-User"])"}}}});
  REQUIRE(a);
  CHECK(a->client_ca == "CLIENT PEM");
  CHECK(a->front_proxy_ca == "PROXY PEM");
  CHECK(a->front_proxy_names == std::vector<std::string>{"front-proxy-client", "aggregator"});
}

TEST_CASE("without --requestheader-client-ca-file: no front-proxy CA, no names") {
  auto a = parse_apiserver_authentication(json{{"data", {{"client-ca-file", "PEM"}}}});
  REQUIRE(a);
  CHECK(a->front_proxy_ca.empty());
  CHECK(a->front_proxy_names.empty());
  auto empty = parse_apiserver_authentication(json{{"metadata", json::object()}});
  REQUIRE(empty);
  CHECK(empty->client_ca.empty());
}

TEST_CASE("allowed names that are no JSON list of strings are Invalid, naming the key") {
  for (const char* bad : {"front-proxy-client", R"({"a": 1})", R"([1])"}) {
    auto a = parse_apiserver_authentication(json{
        {"data", {{"requestheader-client-ca-file", "PEM"}, {"requestheader-allowed-names", bad}}}});
    REQUIRE_FALSE(a);
    CHECK(a.error().code() == ErrorCode::Invalid);
    CHECK(a.error().message().find("requestheader-allowed-names") != std::string::npos);
  }
}

}  // namespace fed::kube
