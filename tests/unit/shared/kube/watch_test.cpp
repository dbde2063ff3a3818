// Watch streams against a loopback server: chunked streaming, ERROR events, cancellation from
// another thread, and the list-then-watch loop's relist and reconnect behaviour.
#include "shared/kube/watch.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

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

std::string event(const std::string& type, const std::string& name, const std::string& rv) {
  json obj{{"kind", "ConfigMap"},
           {"metadata", {{"name", name}, {"namespace", "default"}, {"resourceVersion", rv}}}};
  if (type == "BOOKMARK")
    obj = json{{"kind", "ConfigMap"}, {"metadata", {{"resourceVersion", rv}}}};
  return json{{"type", type}, {"object", obj}}.dump() + "\n";
}

std::string expired_event() {
  return json{{"type", "ERROR"},
              {"object",
               {{"kind", "Status"},
                {"code", 410},
                {"reason", "Expired"},
                {"message", "too old resource version: 1 (50)"}}}}
             .dump() +
         "\n";
}

}  // namespace

TEST_CASE("watch_once delivers events split across chunks, in order") {
  const std::string all = event("ADDED", "a", "11") + event("MODIFIED", "a", "12") +
                          event("BOOKMARK", "", "13") + event("DELETED", "a", "14");
  LoopbackServer server([&](const TestRequest&) {
    TestResponse r;
    r.stream = true;
    r.headers.emplace_back("Content-Type", "application/json");
    // Cut mid-object, mid-line and across lines.
    for (size_t i = 0; i < all.size(); i += 37) r.chunks.push_back(all.substr(i, 37));
    r.chunk_delay = 2ms;
    return r;
  });
  auto client = loopback_client(server, "w");
  std::vector<std::pair<WatchEventType, std::string>> seen;
  WatchOptions wo;
  wo.resource_version = "10";
  wo.timeout = 60s;
  auto r = watch_once(client->rest(), kConfigMaps, wo,
                      [&](WatchEvent&& ev) {
                        seen.emplace_back(
                            ev.type, ev.object["metadata"]["resourceVersion"].get<std::string>());
                        return WatchAction::Continue;
                      },
                      {});
  REQUIRE(r);  // the server ended the stream
  REQUIRE(seen.size() == 4);
  CHECK(seen[0] == std::make_pair(WatchEventType::Added, std::string("11")));
  CHECK(seen[2] == std::make_pair(WatchEventType::Bookmark, std::string("13")));
  CHECK(seen[3] == std::make_pair(WatchEventType::Deleted, std::string("14")));
  const auto req = server.requests().at(0);
  CHECK(req.path == "/api/v1/namespaces/default/configmaps");
  CHECK(req.param("watch") == "true");
  CHECK(req.param("resourceVersion") == "10");
  CHECK(req.param("allowWatchBookmarks") == "true");
  CHECK(req.param("timeoutSeconds") == "60");
}

TEST_CASE("an ERROR event with code 410 ends the watch as Gone; the handler can stop it") {
  LoopbackServer server([&](const TestRequest& req) {
    TestResponse r;
    r.stream = true;
    r.hold_open = true;
    if (req.param("resourceVersion") == "1") {
      r.chunks = {expired_event()};
    } else {
      r.chunks = {event("ADDED", "a", "5"), event("ADDED", "b", "6")};
    }
    return r;
  });
  auto client = loopback_client(server, "w");
  WatchOptions old;
  old.resource_version = "1";
  auto gone = watch_once(client->rest(), kConfigMaps, old,
                         [](WatchEvent&&) { return WatchAction::Continue; }, {});
  REQUIRE_FALSE(gone);
  CHECK(gone.error().is_gone());
  CHECK(gone.error().reason() == "Expired");

  int n = 0;
  auto stopped = watch_once(
      client->rest(), kConfigMaps, WatchOptions{},
      [&](WatchEvent&&) { return ++n == 1 ? WatchAction::Stop : WatchAction::Continue; }, {});
  CHECK(stopped);
  CHECK(n == 1);
}

TEST_CASE("a watch is cancelled promptly from another thread") {
  LoopbackServer server([&](const TestRequest&) {
    TestResponse r;
    r.stream = true;
    r.hold_open = true;
    r.chunks = {event("ADDED", "a", "5")};
    return r;
  });
  auto client = loopback_client(server, "w");
  std::stop_source stop;
  std::atomic<int> events{0};
  std::thread canceller([&] {
    eventually([&] { return events.load() == 1; });
    stop.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  auto r = watch_once(
      client->rest(), kConfigMaps, WatchOptions{},
      [&](WatchEvent&&) {
        ++events;
        return WatchAction::Continue;
      },
      stop.get_token());
  canceller.join();
  REQUIRE_FALSE(r);
  CHECK(r.error().transport_failure() == TransportFailure::Cancelled);
  CHECK(std::chrono::steady_clock::now() - start < 1s);
}

TEST_CASE("list_and_watch relists on 410 and resumes from the last resourceVersion after a drop") {
  std::atomic<int> lists{0};
  std::atomic<int> watches{0};
  std::mutex mu;
  std::vector<std::string> watch_rvs;
  LoopbackServer server([&](const TestRequest& req) {
    if (!req.has_param("watch")) {
      const int n = ++lists;
      json items = json::array();
      items.push_back({{"metadata",
                        {{"name", n == 1 ? "old" : "new"},
                         {"namespace", "default"},
                         {"resourceVersion", n == 1 ? "10" : "50"}}}});
      return TestResponse::json(200, json{{"kind", "ConfigMapList"},
                                          {"metadata", {{"resourceVersion", n == 1 ? "10" : "50"}}},
                                          {"items", items}}
                                         .dump());
    }
    {
      std::lock_guard lock(mu);
      watch_rvs.push_back(req.param("resourceVersion"));
    }
    const int w = ++watches;
    TestResponse r;
    r.stream = true;
    if (w == 1) {
      r.chunks = {expired_event()};  // from the first list's rv: too old
      r.hold_open = true;
    } else if (w == 2) {
      r.chunks = {event("ADDED", "x", "51"), event("BOOKMARK", "", "60")};
      r.abort_stream = true;  // the connection breaks
    } else {
      r.chunks = {event("MODIFIED", "x", "61")};
      r.hold_open = true;
    }
    return r;
  });
  auto client = loopback_client(server, "w");
  ListWatchOptions opts;
  opts.backoff = BackoffPolicy{1ms, 5ms, 2.0};
  std::atomic<int> on_list{0};
  std::vector<std::string> events;
  ListWatchHandlers h;
  h.on_list = [&](std::vector<json>&& items, const std::string& rv) {
    std::lock_guard lock(mu);
    ++on_list;
    events.push_back("list:" + rv + ":" + std::to_string(items.size()));
  };
  h.on_event = [&](WatchEvent&& ev) {
    std::lock_guard lock(mu);
    events.push_back(std::string(to_string(ev.type)) + ":" +
                     ev.object["metadata"]["resourceVersion"].get<std::string>());
  };
  std::stop_source stop;
  std::thread loop([&] { list_and_watch(*client, kConfigMaps, opts, h, stop.get_token()); });
  const bool done = eventually([&] {
    std::lock_guard lock(mu);
    return events.size() >= 4;
  });
  stop.request_stop();
  loop.join();
  REQUIRE(done);
  std::lock_guard lock(mu);
  CHECK(events == std::vector<std::string>{"list:10:1", "list:50:1", "ADDED:51", "MODIFIED:61"});
  CHECK(on_list == 2);  // relisted once (410), not after the drop
  REQUIRE(watch_rvs.size() >= 3);
  CHECK(watch_rvs[0] == "10");
  CHECK(watch_rvs[1] == "50");
  CHECK(watch_rvs[2] == "60");  // resumed after the bookmark
}

}  // namespace fed::kube

namespace fed::kube {

TEST_CASE(
    "list_and_watch can resume from a remembered resourceVersion, relisting if it is too old") {
  std::atomic<int> lists{0};
  LoopbackServer server([&](const TestRequest& req) {
    if (!req.has_param("watch")) {
      ++lists;
      return TestResponse::json(200, json{{"kind", "ConfigMapList"},
                                          {"metadata", {{"resourceVersion", "50"}}},
                                          {"items", json::array()}}
                                         .dump());
    }
    TestResponse r;
    r.stream = true;
    r.hold_open = true;
    r.chunks = {req.param("resourceVersion") == "5" ? expired_event() : event("ADDED", "n", "51")};
    return r;
  });
  auto client = loopback_client(server, "w");
  ListWatchOptions opts;
  opts.backoff = BackoffPolicy{1ms, 5ms, 2.0};
  opts.resume_resource_version = "5";
  std::atomic<int> added{0};
  ListWatchHandlers h;
  h.on_list = [](std::vector<json>&&, const std::string&) {};
  h.on_event = [&](WatchEvent&&) { ++added; };
  std::stop_source stop;
  std::thread loop([&] { list_and_watch(*client, kConfigMaps, opts, h, stop.get_token()); });
  const bool ok = eventually([&] { return added.load() == 1; });
  stop.request_stop();
  loop.join();
  CHECK(ok);
  CHECK(lists == 1);
  const auto reqs = server.requests();
  REQUIRE(reqs.size() >= 3);
  CHECK(reqs[0].param("resourceVersion") == "5");  // no list before the first watch
  CHECK_FALSE(reqs[1].has_param("watch"));         // the relist after 410
  CHECK(reqs[2].param("resourceVersion") == "50");
}

}  // namespace fed::kube
