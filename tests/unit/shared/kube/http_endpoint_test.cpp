#include "shared/kube/http_endpoint.hpp"

#include <curl/curl.h>
#include <doctest/doctest.h>

#include "shared/kube/curl_failure.hpp"

namespace fed::kube {

namespace {
RestConfig config(std::string server, std::string tls_server_name = "") {
  RestConfig c;
  c.server = std::move(server);
  c.tls_server_name = std::move(tls_server_name);
  c.cluster_name = "c1";
  return c;
}
}  // namespace

TEST_CASE("the base URL keeps scheme, host, port and path prefix") {
  auto ep = resolve_endpoint(config("https://10.0.0.1:6443"));
  REQUIRE(ep);
  CHECK(ep->base_url == "https://10.0.0.1:6443");
  CHECK(ep->connect_to.empty());
  CHECK(ep->host_header.empty());
  CHECK(ep->label == "https://10.0.0.1:6443 (cluster \"c1\")");
  auto prefixed = resolve_endpoint(config("https://rancher.example/k8s/clusters/c-1/"));
  REQUIRE(prefixed);
  CHECK(prefixed->base_url == "https://rancher.example:443/k8s/clusters/c-1");
}

TEST_CASE("tls-server-name: the URL names it, connect-to maps it to the real address") {
  auto ep = resolve_endpoint(config("https://10.0.0.1:6443", "kubernetes.default.svc"));
  REQUIRE(ep);
  CHECK(ep->base_url == "https://kubernetes.default.svc:6443");
  CHECK(ep->connect_to == "kubernetes.default.svc:6443:10.0.0.1:6443");
  CHECK(ep->host_header == "Host: 10.0.0.1:6443");
  auto v6 = resolve_endpoint(config("https://[fd00::1]:6443", "api.internal"));
  REQUIRE(v6);
  CHECK(v6->connect_to == "api.internal:6443:[fd00::1]:6443");
  // Plain http has no TLS to name.
  auto plain = resolve_endpoint(config("http://127.0.0.1:8080", "x"));
  REQUIRE(plain);
  CHECK(plain->connect_to.empty());
}

TEST_CASE("bad server and proxy URLs are Invalid and name the cluster") {
  for (const char* bad : {"", "10.0.0.1:6443", "ftp://x", "https://"}) {
    CAPTURE(bad);
    auto ep = resolve_endpoint(config(bad));
    REQUIRE_FALSE(ep);
    CHECK(ep.error().code() == ErrorCode::Invalid);
    CHECK(ep.error().message().find("cluster \"c1\"") != std::string::npos);
  }
  auto c = config("https://x:1");
  c.proxy_url = "http://proxy:3128";
  CHECK(resolve_endpoint(c));
  c.proxy_url = "socks5://proxy:1080";
  CHECK(resolve_endpoint(c));
}

TEST_CASE("curl failures become one line and a retry class") {
  const std::string label = "https://127.0.0.1:6443 (cluster \"c1\")";
  CurlFailureFacts refused{CURLE_COULDNT_CONNECT, 111, true, false, "Failed to connect"};
  auto e = classify_curl_failure(refused, label);
  CHECK(e.transport_failure() == TransportFailure::Connect);
  CHECK(e.to_error().message() ==
        "cannot reach https://127.0.0.1:6443 (cluster \"c1\"): connection refused");
  CHECK(classify_curl_failure({CURLE_OPERATION_TIMEDOUT, 0, true, false, "t"}, label)
            .transport_failure() == TransportFailure::Connect);
  CHECK(classify_curl_failure({CURLE_OPERATION_TIMEDOUT, 0, false, false, "t"}, label)
            .transport_failure() == TransportFailure::Timeout);
  CHECK(classify_curl_failure({CURLE_RECV_ERROR, 104, false, false, "reset"}, label)
            .transport_failure() == TransportFailure::Interrupted);
  CHECK(classify_curl_failure({CURLE_PEER_FAILED_VERIFICATION, 0, true, false, "bad cert"}, label)
            .transport_failure() == TransportFailure::Tls);
  CHECK(
      classify_curl_failure({CURLE_WRITE_ERROR, 0, false, true, "w"}, label).transport_failure() ==
      TransportFailure::Cancelled);
}

}  // namespace fed::kube
