// RestClient and HttpTransport against a real loopback HTTP(S) server run by the test.
#include "shared/kube/rest_client.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "tests/unit/shared/kube/loopback_server.hpp"

namespace fed::kube {

using namespace std::chrono_literals;
using testing::LoopbackServer;
using testing::TestRequest;
using testing::TestResponse;

namespace {

RestClientOptions fast_retries(int max_retries = 5) {
  RestClientOptions o;
  o.max_retries = max_retries;
  o.backoff = BackoffPolicy{1ms, 10ms, 2.0};
  return o;
}

RestConfig config_for(const std::string& server) {
  RestConfig c;
  c.server = server;
  c.cluster_name = "c1";
  c.qps = 0;  // unlimited unless a test says otherwise
  return c;
}

std::shared_ptr<RestClient> client_for(RestConfig config, RestClientOptions o = fast_retries()) {
  auto c = RestClient::create(std::move(config), o);
  if (!c) FAIL(c.error().message());
  return *c;
}

ApiRequest get(std::string path) {
  ApiRequest r;
  r.path = std::move(path);
  return r;
}

std::string status_json(int code, const std::string& reason, const std::string& msg) {
  return nlohmann::json{{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                        {"code", code},     {"reason", reason},   {"message", msg}}
      .dump();
}

class RotatingToken final : public CredentialSource {
 public:
  Result<std::string> token() override { return "token-" + std::to_string(generation_.load()); }
  void invalidate() override {
    ++generation_;
    ++invalidations;
  }
  std::atomic<int> generation_{1};
  std::atomic<int> invalidations{0};
};

}  // namespace

TEST_CASE("GET sends User-Agent, Accept and the bearer token; the body is JSON") {
  LoopbackServer server([](const TestRequest&) {
    return TestResponse::json(200, R"({"kind":"ConfigMap","data":{"a":"b"}})");
  });
  auto cfg = config_for(server.url());
  cfg.user_agent = "kubectl-fed/test";
  auto creds = std::make_shared<RotatingToken>();
  cfg.credentials = creds;
  auto client = client_for(cfg);
  auto r = client->send_json(get("/api/v1/namespaces/default/configmaps/x"));
  REQUIRE(r);
  CHECK((*r)["data"]["a"] == "b");
  const auto reqs = server.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].method == "GET");
  CHECK(reqs[0].path == "/api/v1/namespaces/default/configmaps/x");
  CHECK(reqs[0].header("user-agent") == "kubectl-fed/test");
  CHECK(reqs[0].header("accept") == "application/json");
  CHECK(reqs[0].header("authorization") == "Bearer token-1");
}

TEST_CASE("a 401 invalidates the credential and retries once with a fresh token") {
  LoopbackServer server([](const TestRequest& req) {
    if (req.header("authorization") == "Bearer token-2") return TestResponse::json(200, "{}");
    return TestResponse::json(401, status_json(401, "Unauthorized", "Unauthorized"));
  });
  auto cfg = config_for(server.url());
  auto creds = std::make_shared<RotatingToken>();
  cfg.credentials = creds;
  auto client = client_for(cfg);
  REQUIRE(client->send(get("/api")));
  CHECK(creds->invalidations == 1);
  CHECK(server.request_count() == 2);

  // A token that stays rejected fails after one refresh, as Permission.
  creds->generation_ = 10;
  auto r = client->send(get("/api"));
  REQUIRE_FALSE(r);
  CHECK(r.error().http_status() == 401);
  CHECK(r.error().code() == ErrorCode::Permission);
  CHECK(creds->invalidations == 2);
  CHECK(server.request_count() == 4);
}

TEST_CASE("basic auth is sent when a username is configured") {
  LoopbackServer server([](const TestRequest&) { return TestResponse::json(200, "{}"); });
  auto cfg = config_for(server.url());
  cfg.username = "admin";
  cfg.password = "secret";
  REQUIRE(client_for(cfg)->send(get("/api")));
  CHECK(server.requests().at(0).header("authorization") == "Basic YWRtaW46c2VjcmV0");
}

TEST_CASE("429 is retried after the Retry-After seconds") {
  std::atomic<int> calls{0};
  LoopbackServer server([&](const TestRequest&) {
    if (calls++ == 0) {
      auto r = TestResponse::json(429, status_json(429, "TooManyRequests", "slow down"));
      r.headers.emplace_back("Retry-After", "1");
      return r;
    }
    return TestResponse::json(200, "{}");
  });
  auto client = client_for(config_for(server.url()));
  ApiRequest post;
  post.method = "POST";  // 429 means "not processed": even POST retries
  post.path = "/api/v1/namespaces/default/configmaps";
  post.body = "{}";
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(client->send(post));
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(took >= 950ms);
  CHECK(took < 5s);
  CHECK(server.request_count() == 2);
  CHECK(server.requests()[1].body == "{}");
  CHECK(server.requests()[1].header("content-type") == "application/json");
}

TEST_CASE("5xx is retried for GET, not for POST, never for 501; retries are bounded") {
  std::atomic<int> calls{0};
  LoopbackServer server([&](const TestRequest& req) {
    if (req.path == "/flaky") {
      return calls++ < 2 ? TestResponse::json(503, status_json(503, "ServiceUnavailable", "x"))
                         : TestResponse::json(200, "{}");
    }
    if (req.path == "/501")
      return TestResponse::json(501, status_json(501, "NotImplemented", "no"));
    return TestResponse::json(500, status_json(500, "InternalError", "boom"));
  });
  auto client = client_for(config_for(server.url()), fast_retries(3));
  REQUIRE(client->send(get("/flaky")));
  CHECK(server.request_count() == 3);

  ApiRequest post = get("/always500");
  post.method = "POST";
  auto p = client->send(post);
  REQUIRE_FALSE(p);
  CHECK(server.request_count() == 4);  // one attempt only

  auto g = client->send(get("/always500"));
  REQUIRE_FALSE(g);
  CHECK(server.request_count() == 8);  // 1 + 3 retries
  CHECK(g.error().code() == ErrorCode::Unavailable);
  CHECK(g.error().to_error().message() == "GET /always500: boom (HTTP 500 InternalError)");

  auto n = client->send(get("/501"));
  REQUIRE_FALSE(n);
  CHECK(server.request_count() == 9);
  CHECK(n.error().code() == ErrorCode::Invalid);
}

TEST_CASE("a write refused for an unresolved policy parameter kind is retried within a budget") {
  const std::string refusal = status_json(
      422, "Invalid",
      "ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find "
      "resource referenced by paramKind: 'fed.kubectl-fed.io/v1alpha1, Kind=FederationLeader'");
  std::atomic<int> calls{0};
  LoopbackServer server([&](const TestRequest& req) {
    if (req.path == "/soon") {
      return calls++ < 3 ? TestResponse::json(422, refusal) : TestResponse::json(200, "{}");
    }
    return TestResponse::json(422, refusal);
  });
  RestClientOptions o = fast_retries(0);
  o.unresolved_policy_interval = 5ms;
  o.unresolved_policy_budget = 100ms;
  auto client = client_for(config_for(server.url()), o);
  ApiRequest del = get("/soon");
  del.method = "DELETE";
  REQUIRE(client->send(del));
  CHECK(server.request_count() == 4);  // retried although max_retries is 0

  ApiRequest post = get("/never");
  post.method = "POST";
  auto p = client->send(post);
  REQUIRE_FALSE(p);  // the budget ends it with the server's refusal
  CHECK(p.error().code() == ErrorCode::Invalid);
  CHECK(server.request_count() > 5);
}

TEST_CASE("an unreachable server gives one clear line") {
  const int port = testing::unused_port();
  auto cfg = config_for("http://127.0.0.1:" + std::to_string(port));
  auto client = client_for(cfg, fast_retries(2));
  auto r = client->send(get("/version"));
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == ErrorCode::Unavailable);
  CHECK(r.error().transport_failure() == TransportFailure::Connect);
  CHECK(r.error().to_error().message() == "cannot reach http://127.0.0.1:" + std::to_string(port) +
                                              " (cluster \"c1\"): connection refused");
}

TEST_CASE("a connection dropped after the request: GET retries, POST does not") {
  std::atomic<int> calls{0};
  LoopbackServer server([&](const TestRequest& req) {
    if (req.method != "GET" || calls++ == 0) {
      TestResponse r;
      r.drop = true;
      return r;
    }
    return TestResponse::json(200, "{}");
  });
  auto client = client_for(config_for(server.url()));
  REQUIRE(client->send(get("/x")));
  CHECK(server.request_count() == 2);

  // On a fresh connection (libcurl itself resends once when a *reused* keep-alive connection
  // closes before any response byte: the stale-connection race).
  auto fresh = client_for(config_for(server.url()));
  ApiRequest post = get("/x");
  post.method = "POST";
  post.body = R"({"a":1})";
  auto r = fresh->send(post);
  REQUIRE_FALSE(r);
  CHECK(r.error().transport_failure() == TransportFailure::Interrupted);
  CHECK(r.error().code() == ErrorCode::Unavailable);
  CHECK(server.request_count() == 3);

  // A PATCH that the caller marks idempotent (resourceVersion precondition) is resent.
  ApiRequest patch = post;
  patch.method = "PATCH";
  patch.idempotency = Idempotency::Idempotent;
  CHECK_FALSE(client_for(config_for(server.url()))->send(patch));
  CHECK(server.request_count() == 3 + 6);
}

TEST_CASE("keep-alive: sequential requests reuse one connection; concurrent ones are safe") {
  LoopbackServer server([](const TestRequest&) { return TestResponse::json(200, "{}"); });
  auto client = client_for(config_for(server.url()));
  for (int i = 0; i < 5; ++i) {
    auto r = client->send(get("/api"));
    REQUIRE(r);
    if (i > 0) CHECK(r->reused_connection);
  }
  CHECK(server.connection_count() == 1);

  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        if (!client->send(get("/api"))) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  CHECK(server.request_count() == 205);
  CHECK(server.connection_count() <= 9);  // one per concurrently used handle
}

TEST_CASE("the request timeout ends a slow request") {
  LoopbackServer server([](const TestRequest&) {
    auto r = TestResponse::json(200, "{}");
    r.delay = 3s;
    return r;
  });
  auto cfg = config_for(server.url());
  cfg.request_timeout = 200ms;
  auto client = client_for(cfg, fast_retries(0));
  const auto start = std::chrono::steady_clock::now();
  auto r = client->send(get("/slow"));
  REQUIRE_FALSE(r);
  CHECK(std::chrono::steady_clock::now() - start < 2s);
  CHECK(r.error().transport_failure() == TransportFailure::Timeout);
  CHECK(r.error().code() == ErrorCode::Unavailable);
}

TEST_CASE("a stop request cancels an in-flight request promptly") {
  LoopbackServer server([](const TestRequest&) {
    auto r = TestResponse::json(200, "{}");
    r.delay = 5s;
    return r;
  });
  auto client = client_for(config_for(server.url()));
  std::stop_source stop;
  ApiRequest req = get("/slow");
  req.stop = stop.get_token();
  std::thread canceller([&] {
    std::this_thread::sleep_for(100ms);
    stop.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  auto r = client->send(req);
  canceller.join();
  REQUIRE_FALSE(r);
  CHECK(r.error().transport_failure() == TransportFailure::Cancelled);
  CHECK(std::chrono::steady_clock::now() - start < 1s);
}

TEST_CASE("the client-side QPS limit paces requests") {
  LoopbackServer server([](const TestRequest&) { return TestResponse::json(200, "{}"); });
  auto cfg = config_for(server.url());
  cfg.qps = 20;
  cfg.burst = 1;
  auto client = client_for(cfg);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i) REQUIRE(client->send(get("/api")));
  CHECK(std::chrono::steady_clock::now() - start >= 240ms);  // 5 waits of 50 ms
}

TEST_CASE("get_raw returns any path's body; a non-JSON body is an Internal error for send_json") {
  LoopbackServer server([](const TestRequest& req) {
    TestResponse r;
    r.headers.emplace_back("Content-Type", "text/plain");
    r.body = req.path == "/version" ? R"({"gitVersion":"v1.33.0"})" : "plain text";
    return r;
  });
  auto client = client_for(config_for(server.url()));
  auto v = client->get_raw("/version?x=1");
  REQUIRE(v);
  CHECK(*v == R"({"gitVersion":"v1.33.0"})");
  CHECK(server.requests()[0].query == "x=1");
  auto bad = client->send_json(get("/configz"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code() == ErrorCode::Internal);
}

TEST_CASE("invalid server and proxy URLs are rejected up front") {
  RestConfig c;
  c.cluster_name = "c1";
  c.server = "";
  CHECK_FALSE(RestClient::create(c));
  c.server = "ftp://x";
  auto r = RestClient::create(c);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == ErrorCode::Invalid);
  CHECK(r.error().message().find("cluster \"c1\"") != std::string::npos);
}

}  // namespace fed::kube
