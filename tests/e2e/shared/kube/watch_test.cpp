// Watch, informer and controller against a real kube-apiserver (testbed cluster c1).
#include <doctest/doctest.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "shared/kube/controller.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/watch.hpp"
#include "tests/e2e/shared/kube/e2e_support.hpp"

namespace fed::kube {

using namespace e2e;

TEST_CASE("a watch survives a forced 410 by relisting") {
  auto c = client();
  TestNamespace ns(*c, "watch");
  must(c->create(ns.configmaps(), configmap("before")), "create");

  // resourceVersion 1 predates the watch cache: the server answers with an ERROR 410 event.
  WatchOptions ancient;
  ancient.resource_version = "1";
  auto gone = watch_once(c->rest(), ns.configmaps(), ancient,
                         [](WatchEvent&&) { return WatchAction::Continue; }, {});
  REQUIRE_FALSE(gone);
  CHECK(gone.error().is_gone());

  // The loop resumes from that version, gets the 410, relists, then streams new events.
  std::mutex mu;
  std::vector<std::string> seen;
  int lists = 0;
  ListWatchHandlers h;
  h.on_list = [&](std::vector<json>&& items, const std::string&) {
    std::lock_guard lock(mu);
    ++lists;
    for (const auto& i : items) seen.push_back("list " + i["metadata"]["name"].get<std::string>());
  };
  h.on_event = [&](WatchEvent&& ev) {
    std::lock_guard lock(mu);
    seen.push_back(std::string(to_string(ev.type)) + " " +
                   ev.object["metadata"]["name"].get<std::string>());
  };
  ListWatchOptions lw;
  lw.resume_resource_version = "1";
  std::stop_source stop;
  std::thread loop([&] { list_and_watch(*c, ns.configmaps(), lw, h, stop.get_token()); });
  const bool relisted = eventually([&] {
    std::lock_guard lock(mu);
    return lists == 1;
  });
  must(c->create(ns.configmaps(), configmap("after")), "create after");
  const bool streamed = eventually([&] {
    std::lock_guard lock(mu);
    return std::find(seen.begin(), seen.end(), "ADDED after") != seen.end();
  });
  stop.request_stop();
  loop.join();
  CHECK(relisted);
  CHECK(streamed);
  std::lock_guard lock(mu);
  CHECK(std::find(seen.begin(), seen.end(), "list before") != seen.end());
  ns.pass();
}

TEST_CASE("an informer-fed controller reconciles ConfigMaps of a real cluster") {
  auto c = client();
  TestNamespace ns(*c, "ctl");
  class Recorder final : public Reconciler {
   public:
    explicit Recorder(Informer& inf) : inf_(inf) {}
    Result<Requeue> reconcile(const Request& r) override {
      std::lock_guard lock(mu);
      // State comes from the cache, never from the event.
      seen[r.name] = inf_.store().get(r.ns, r.name) != nullptr;
      return Requeue{};
    }
    std::mutex mu;
    std::map<std::string, bool> seen;

   private:
    Informer& inf_;
  };
  Informer informer(c, ns.configmaps());
  Recorder rec(informer);
  ControllerOptions opts;
  opts.name = "e2e";
  opts.workers = 2;
  Controller ctl(rec, std::move(opts));
  ctl.watch(informer);
  informer.start();
  REQUIRE(ctl.start());
  must(c->create(ns.configmaps(), configmap("x")), "create x");
  CHECK(eventually([&] {
    std::lock_guard lock(rec.mu);
    return rec.seen.count("x") && rec.seen["x"];
  }));
  must(c->remove(ns.configmaps().named("x")), "delete x");
  CHECK(eventually([&] {
    std::lock_guard lock(rec.mu);
    return !rec.seen["x"];
  }));
  ctl.stop();
  informer.stop();
  ns.pass();
}

}  // namespace fed::kube
