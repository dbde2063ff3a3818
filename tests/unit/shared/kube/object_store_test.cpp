#include "shared/kube/object_store.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace fed::kube {

namespace {
ObjectPtr obj(const std::string& ns, const std::string& name, const std::string& rv,
              nlohmann::json labels = nlohmann::json::object()) {
  nlohmann::json j;
  j["metadata"]["name"] = name;
  if (!ns.empty()) j["metadata"]["namespace"] = ns;
  j["metadata"]["resourceVersion"] = rv;
  j["metadata"]["labels"] = std::move(labels);
  return std::make_shared<const nlohmann::json>(std::move(j));
}
}  // namespace

TEST_CASE("keys are ns/name, or name when cluster-scoped") {
  CHECK(object_key(*obj("default", "a", "1")) == "default/a");
  CHECK(object_key(*obj("", "node1", "1")) == "node1");
  CHECK(request_for(*obj("default", "a", "1")) == Request{"default", "a"});
  CHECK(to_string(Request{"", "n"}) == "n");
}

TEST_CASE("upsert, get, erase, list by namespace and selector") {
  ObjectStore s;
  CHECK(s.upsert(obj("a", "x", "1", {{"app", "web"}})) == nullptr);
  CHECK(s.upsert(obj("a", "y", "1")) == nullptr);
  CHECK(s.upsert(obj("ab", "z", "1", {{"app", "web"}})) == nullptr);
  auto old = s.upsert(obj("a", "x", "2", {{"app", "web"}}));
  REQUIRE(old);
  CHECK((*old)["metadata"]["resourceVersion"] == "1");
  CHECK(s.size() == 3);
  CHECK(s.get("a", "x"));
  CHECK(s.get("a/x"));
  CHECK_FALSE(s.get("a", "missing"));
  CHECK(s.list("a").size() == 2);  // not "ab"
  CHECK(s.list("ab").size() == 1);
  auto sel = LabelSelector::parse("app=web");
  REQUIRE(sel);
  CHECK(s.list("", *sel).size() == 2);
  CHECK(s.list("a", *sel).size() == 1);
  CHECK(s.keys() == std::vector<std::string>{"a/x", "a/y", "ab/z"});
  CHECK(s.erase("a/y"));
  CHECK_FALSE(s.erase("a/y"));
  CHECK(s.size() == 2);
}

TEST_CASE("replace reports added, updated (changed resourceVersion) and deleted") {
  ObjectStore s;
  s.upsert(obj("n", "keep", "1"));
  s.upsert(obj("n", "change", "1"));
  s.upsert(obj("n", "gone", "1"));
  auto r = s.replace({obj("n", "keep", "1"), obj("n", "change", "2"), obj("n", "new", "1")});
  REQUIRE(r.added.size() == 1);
  CHECK(object_key(*r.added[0]) == "n/new");
  REQUIRE(r.updated.size() == 1);
  CHECK((*r.updated[0].first)["metadata"]["resourceVersion"] == "1");
  CHECK((*r.updated[0].second)["metadata"]["resourceVersion"] == "2");
  REQUIRE(r.deleted.size() == 1);
  CHECK(object_key(*r.deleted[0]) == "n/gone");
  CHECK(s.size() == 3);
}

TEST_CASE("concurrent readers and writers") {
  ObjectStore s;
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < 2000; ++i) {
        s.upsert(obj("ns", "o" + std::to_string(i % 50), std::to_string(i + w)));
        if (i % 7 == 0) s.erase("ns/o" + std::to_string(i % 50));
      }
    });
  }
  std::atomic<bool> wrong{false};
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        for (const auto& o : s.list("ns")) {
          if ((*o)["metadata"]["namespace"] != "ns") wrong = true;
        }
        (void)s.get("ns/o1");
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK_FALSE(wrong.load());
  CHECK(s.size() <= 50);
}

}  // namespace fed::kube
