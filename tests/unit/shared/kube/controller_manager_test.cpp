// ControllerManager against a loopback API server: shared informers, start and stop order, a
// failing component, and controllers reconciling what the shared cache holds.
#include "shared/kube/controller_manager.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

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

json configmap(const std::string& name) {
  return json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", {{"name", name}, {"namespace", "default"}, {"resourceVersion", "1"}}}};
}

// Lists two ConfigMaps, then holds every watch open; counts the lists it answered.
struct Cluster {
  std::atomic<int> lists{0};
  LoopbackServer server{[this](const TestRequest& req) {
    if (!req.has_param("watch")) {
      ++lists;
      return TestResponse::json(200, json{{"kind", "ConfigMapList"},
                                          {"metadata", {{"resourceVersion", "10"}}},
                                          {"items", {configmap("a"), configmap("b")}}}
                                         .dump());
    }
    TestResponse r;
    r.stream = true;
    r.hold_open = true;
    return r;
  }};

  std::shared_ptr<DynamicClient> client() const { return loopback_client(server, "cm"); }
};

class SeenReconciler final : public Reconciler {
 public:
  Result<Requeue> reconcile(const Request& request) override {
    std::lock_guard lock(mu_);
    seen_.insert(to_string(request));
    return Requeue{};
  }
  std::set<std::string> seen() const {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  mutable std::mutex mu_;
  std::set<std::string> seen_;
};

}  // namespace

TEST_CASE("one informer per collection and selectors, shared by every controller") {
  Cluster cluster;
  ControllerManager manager(cluster.client());
  Informer& first = manager.informer(kConfigMaps);
  CHECK(&manager.informer(kConfigMaps) == &first);
  InformerOptions labelled;
  labelled.label_selector = "app=x";
  Informer& narrowed = manager.informer(kConfigMaps, labelled);
  CHECK(&narrowed != &first);
  CHECK(&manager.informer(kConfigMaps, labelled) == &narrowed);

  auto& a = manager.own(std::make_unique<SeenReconciler>());
  auto& b = manager.own(std::make_unique<SeenReconciler>());
  manager.add_controller(a, "a", 1).watch(first);
  manager.add_controller(b, "b", 1).watch(manager.informer(kConfigMaps));
  REQUIRE(manager.start());
  CHECK(manager.running());
  CHECK(eventually([&] { return a.seen().size() == 2 && b.seen().size() == 2; }));
  CHECK(a.seen() == std::set<std::string>{"default/a", "default/b"});
  CHECK(manager.healthy());
  // Two informers (plain and labelled), whatever the number of controllers.
  CHECK(cluster.lists.load() == 2);
  manager.stop();
  CHECK_FALSE(manager.running());
  CHECK_FALSE(manager.healthy());
}

TEST_CASE("a standby's caches sync without its components: caches_synced, not healthy") {
  Cluster cluster;
  ControllerManager manager(cluster.client());
  auto& reconciler = manager.own(std::make_unique<SeenReconciler>());
  manager.add_controller(reconciler, "a", 1).watch(manager.informer(kConfigMaps));
  CHECK_FALSE(manager.caches_synced());  // not started: no first list yet
  manager.start_caches();
  CHECK(eventually([&] { return manager.caches_synced(); }));
  CHECK_FALSE(manager.running());
  CHECK_FALSE(manager.healthy());
  CHECK(reconciler.seen().empty());  // no controller ran
  REQUIRE(manager.start_components());
  CHECK(manager.healthy());
  manager.stop();
}

TEST_CASE("components start in order and stop in reverse order, once") {
  Cluster cluster;
  ControllerManager manager(cluster.client());
  std::vector<std::string> log;
  for (const std::string name : {"first", "second", "third"}) {
    manager.add_runnable(
        name,
        [&log, name] {
          log.push_back("start " + name);
          return ok();
        },
        [&log, name] { log.push_back("stop " + name); });
  }
  CHECK(manager.component_names() == std::vector<std::string>{"first", "second", "third"});
  REQUIRE(manager.start());
  REQUIRE(manager.start());  // idempotent while running
  manager.stop();
  manager.stop();
  CHECK(log == std::vector<std::string>{"start first", "start second", "start third", "stop third",
                                        "stop second", "stop first"});
  auto again = manager.start_components();
  REQUIRE_FALSE(again);
  CHECK(again.error().message().find("cannot start again") != std::string::npos);
}

TEST_CASE("the slowest starts are named, slowest first; quick ones are not") {
  Cluster cluster;
  ControllerManager manager(cluster.client());
  const auto sleeping = [](std::chrono::milliseconds d) {
    return [d] {
      std::this_thread::sleep_for(d);
      return ok();
    };
  };
  manager.add_runnable("quick", [] { return ok(); });
  manager.add_runnable("certificates", sleeping(40ms));
  manager.add_runnable("ipam", sleeping(15ms));
  CHECK(manager.slowest_starts().empty());  // nothing started yet
  REQUIRE(manager.start_components());
  const std::string slowest = manager.slowest_starts();
  INFO(slowest);
  CHECK(slowest.find("certificates ") == 0);
  CHECK(slowest.find(", ipam ") != std::string::npos);
  CHECK(slowest.find("quick") == std::string::npos);
  CHECK(manager.slowest_starts(1).find(",") == std::string::npos);
  manager.stop();
}

TEST_CASE("a component that fails to start stops those before it and names itself") {
  Cluster cluster;
  ControllerManager manager(cluster.client());
  std::vector<std::string> log;
  manager.add_runnable(
      "server",
      [&] {
        log.push_back("start server");
        return ok();
      },
      [&] { log.push_back("stop server"); });
  manager.add_runnable("certificates", [] {
    return Status(fail(ErrorCode::Unavailable, "the signer did not answer"));
  });
  manager.add_runnable(
      "never",
      [&] {
        log.push_back("start never");
        return ok();
      },
      [&] { log.push_back("stop never"); });
  auto started = manager.start();
  REQUIRE_FALSE(started);
  CHECK(started.error().code() == ErrorCode::Unavailable);
  CHECK(started.error().message() == "certificates: the signer did not answer");
  CHECK(log == std::vector<std::string>{"start server", "stop server"});
  CHECK_FALSE(manager.running());
}

TEST_CASE("a controller whose cache cannot sync fails the start with the collection's name") {
  LoopbackServer refusing([](const TestRequest&) { return TestResponse::json(503, "{}"); });
  ControllerManager manager(loopback_client(refusing, "down"));
  auto& reconciler = manager.own(std::make_unique<SeenReconciler>());
  ControllerOptions options;
  options.name = "configmaps";
  options.cache_sync_timeout = 200ms;
  manager.add_controller(reconciler, std::move(options)).watch(manager.informer(kConfigMaps));
  auto started = manager.start();
  REQUIRE_FALSE(started);
  CHECK(started.error().message().find("configmaps: controller configmaps: the cache of") == 0);
  CHECK_FALSE(manager.healthy());
}

}  // namespace fed::kube
