// Informer and Controller against a loopback server that lists and streams watch events.
#include "shared/kube/informer.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <thread>

#include "shared/kube/controller.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "tests/unit/shared/kube/loopback_client.hpp"
#include "tests/unit/shared/kube/loopback_server.hpp"

namespace fed::kube {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::eventually;
using testing::kConfigMaps;
using testing::loopback_client;
using testing::LoopbackServer;
using testing::TestRequest;
using testing::TestResponse;

namespace {

json cm(const std::string& name, const std::string& rv, const std::string& owner = "") {
  json o{{"apiVersion", "v1"},
         {"kind", "ConfigMap"},
         {"metadata", {{"name", name}, {"namespace", "default"}, {"resourceVersion", rv}}}};
  if (!owner.empty()) o["metadata"]["labels"]["owner"] = owner;
  return o;
}

std::string ev(const std::string& type, const json& obj) {
  return json{{"type", type}, {"object", obj}}.dump() + "\n";
}

// Lists a and b at rv 10, then streams: a modified, b deleted, c added; then holds the stream.
LoopbackServer::Handler scripted_cluster() {
  return [](const TestRequest& req) {
    if (!req.has_param("watch")) {
      return TestResponse::json(200, json{{"kind", "ConfigMapList"},
                                          {"metadata", {{"resourceVersion", "10"}}},
                                          {"items", {cm("a", "1", "x"), cm("b", "2", "y")}}}
                                         .dump());
    }
    TestResponse r;
    r.stream = true;
    r.hold_open = true;
    r.chunk_delay = 5ms;
    r.chunks = {ev("MODIFIED", cm("a", "11", "x")), ev("DELETED", cm("b", "12", "y")),
                ev("ADDED", cm("c", "13", "x"))};
    return r;
  };
}

}  // namespace

TEST_CASE(
    "an informer lists, watches, keeps its store and calls handlers; late handlers catch up") {
  LoopbackServer server(scripted_cluster());
  InformerOptions opts;
  opts.label_selector = "owner";
  Informer informer(loopback_client(server, "inf"), kConfigMaps, opts);
  std::mutex mu;
  std::vector<std::string> log;
  EventHandlers h;
  h.on_add = [&](const ObjectPtr& o) {
    std::lock_guard lock(mu);
    log.push_back("add " + object_key(*o));
  };
  h.on_update = [&](const ObjectPtr& old_o, const ObjectPtr& new_o) {
    std::lock_guard lock(mu);
    log.push_back("update " + object_key(*new_o) + " " +
                  (*old_o)["metadata"]["resourceVersion"].get<std::string>() + "->" +
                  (*new_o)["metadata"]["resourceVersion"].get<std::string>());
  };
  h.on_delete = [&](const ObjectPtr& o) {
    std::lock_guard lock(mu);
    log.push_back("delete " + object_key(*o));
  };
  informer.add_handlers(h);
  CHECK_FALSE(informer.has_synced());
  informer.start();
  REQUIRE(informer.wait_for_sync(5s));
  REQUIRE(eventually([&] {
    std::lock_guard lock(mu);
    return log.size() >= 5;
  }));
  {
    std::lock_guard lock(mu);
    CHECK(log == std::vector<std::string>{"add default/a", "add default/b",
                                          "update default/a 1->11", "delete default/b",
                                          "add default/c"});
  }
  CHECK(informer.store().size() == 2);
  CHECK(informer.store().get("default", "c"));
  CHECK_FALSE(informer.store().get("default", "b"));
  CHECK(server.requests().at(0).param("labelSelector") == "owner");

  std::atomic<int> late_adds{0};
  EventHandlers late;
  late.on_add = [&](const ObjectPtr&) { ++late_adds; };
  informer.add_handlers(late);
  CHECK(late_adds == 2);

  const auto start = std::chrono::steady_clock::now();
  informer.stop();
  CHECK(std::chrono::steady_clock::now() - start < 1s);
}

TEST_CASE("resync replays every cached object as an update") {
  LoopbackServer server(scripted_cluster());
  InformerOptions opts;
  opts.resync_period = 50ms;
  Informer informer(loopback_client(server, "inf"), kConfigMaps, opts);
  std::atomic<int> same_object_updates{0};
  EventHandlers h;
  h.on_update = [&](const ObjectPtr& old_o, const ObjectPtr& new_o) {
    if (old_o == new_o) ++same_object_updates;
  };
  informer.add_handlers(h);
  informer.start();
  CHECK(eventually([&] { return same_object_updates.load() >= 4; }));
  informer.stop();
}

namespace {

// Records calls; fails each key a scripted number of times; checks keys never overlap.
class RecordingReconciler final : public Reconciler {
 public:
  Result<Requeue> reconcile(const Request& r) override {
    const std::string key = to_string(r);
    {
      std::lock_guard lock(mu_);
      if (!in_flight_.insert(key).second) overlap = true;
      ++calls[key];
    }
    std::this_thread::sleep_for(2ms);
    Result<Requeue> result = Requeue{};
    {
      std::lock_guard lock(mu_);
      in_flight_.erase(key);
      if (r.name == "invalid") result = fail(ErrorCode::Invalid, "spec.x is wrong");
      if (r.name == "flaky" && calls[key] < 3) result = fail(ErrorCode::Unavailable, "try later");
      if (r.name == "later" && calls[key] == 1) result = Requeue{30ms, false};
      if (r.name == "throws") throw std::runtime_error("bug");
    }
    return result;
  }
  int count(const std::string& key) {
    std::lock_guard lock(mu_);
    return calls[key];
  }
  std::atomic<bool> overlap{false};
  std::map<std::string, int> calls;

 private:
  std::mutex mu_;
  std::set<std::string> in_flight_;
};

}  // namespace

TEST_CASE("controller: terminal errors stop, others back off, Requeue.after re-runs, no overlap") {
  RecordingReconciler rec;
  ControllerOptions opts;
  opts.name = "test";
  opts.workers = 4;
  opts.rate_limiter = std::make_unique<ItemExponentialRateLimiter>(1ms, 20ms);
  Controller c(rec, std::move(opts));
  REQUIRE(c.start());
  for (const char* name : {"invalid", "flaky", "later", "ok", "throws"})
    c.queue().add({"ns", name});
  for (int i = 0; i < 200; ++i) c.queue().add({"ns", "hot"});
  CHECK(eventually([&] { return rec.count("ns/flaky") == 3 && rec.count("ns/later") == 2; }));
  CHECK(eventually([&] { return rec.count("ns/throws") >= 3; }));  // retried, not fatal
  std::this_thread::sleep_for(50ms);
  CHECK(rec.count("ns/invalid") == 1);
  CHECK(rec.count("ns/ok") == 1);
  CHECK(rec.count("ns/flaky") == 3);  // succeeded on the third try, then forgotten
  CHECK(c.queue().num_requeues({"ns", "flaky"}) == 0);
  CHECK(rec.count("ns/hot") >= 1);
  CHECK(rec.count("ns/hot") < 200);
  CHECK_FALSE(rec.overlap.load());
  c.stop();
}

TEST_CASE("controller fed by an informer reconciles mapped keys after the cache syncs") {
  LoopbackServer server(scripted_cluster());
  Informer informer(loopback_client(server, "inf"), kConfigMaps);
  RecordingReconciler rec;
  ControllerOptions opts;
  opts.workers = 2;
  Controller own(rec, std::move(opts));
  own.watch(informer);
  RecordingReconciler owners;
  Controller by_owner(owners, ControllerOptions{});
  by_owner.watch(informer, [](const json& o) {
    return std::vector<Request>{{"", o["metadata"]["labels"].value("owner", "")}};
  });
  informer.start();
  REQUIRE(own.start());
  REQUIRE(by_owner.start());
  CHECK(eventually([&] {
    return rec.count("default/a") >= 1 && rec.count("default/b") >= 1 &&
           rec.count("default/c") >= 1;
  }));
  CHECK(eventually([&] { return owners.count("x") >= 1 && owners.count("y") >= 1; }));
  own.stop();
  by_owner.stop();
  informer.stop();
}

TEST_CASE("controller start fails clearly when a cache cannot sync") {
  auto port = testing::unused_port();
  RestConfig c;
  c.server = "http://127.0.0.1:" + std::to_string(port);
  c.qps = 0;
  auto client = DynamicClient::create(c, RestClientOptions{0, BackoffPolicy{1ms, 5ms, 2.0}, 1s});
  REQUIRE(client);
  Informer informer(*client, kConfigMaps);
  RecordingReconciler rec;
  ControllerOptions opts;
  opts.name = "nosync";
  opts.cache_sync_timeout = 200ms;
  Controller ctl(rec, std::move(opts));
  ctl.watch(informer);
  informer.start();
  auto s = ctl.start();
  REQUIRE_FALSE(s);
  CHECK(s.error().code() == ErrorCode::Unavailable);
  CHECK(s.error().message().find("configmaps.v1 default") != std::string::npos);
  informer.stop();
}

}  // namespace fed::kube
