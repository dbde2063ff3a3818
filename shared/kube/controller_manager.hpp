#pragma once
// ControllerManager: what a role's controllers share and the order they live in
// (controller-runtime's pkg/manager). It hands out one Informer per watched collection, so two
// controllers that watch the same resource share one list+watch and one cache; it owns the
// controllers, their reconcilers and the runnables beside them (servers, one-off startup work);
// and it starts and stops them as one unit:
//   start():  every informer, then each component in the order it was added (a controller waits
//             for its informers' first list before its workers start);
//   stop():   the components in reverse order, then the informers.
// A component whose start fails stops those already started, and start() returns its error.
// The split between caches and components (start_caches / start_components / stop_components)
// is the hook for leader election: a standby keeps its caches warm and runs no controller.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "shared/kube/controller.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/resource_ref.hpp"
#include "shared/result/result.hpp"

namespace fed::kube {

class DynamicClient;

class ControllerManager final {
 public:
  // Informers list and watch through `client`.
  explicit ControllerManager(std::shared_ptr<DynamicClient> client);
  // Stops everything still running, then destroys controllers before what they reference.
  ~ControllerManager();
  ControllerManager(const ControllerManager&) = delete;
  ControllerManager& operator=(const ControllerManager&) = delete;

  const std::shared_ptr<DynamicClient>& client() const { return client_; }

  // The shared informer of `collection` (name empty) with `options`' label and field
  // selectors, created on the first call for that key; later calls with the same key return the
  // same informer (their other options are ignored). Call before start().
  Informer& informer(const ResourceRef& collection, InformerOptions options = {});

  // Keeps `object` alive as long as the controllers (a reconciler, a store two controllers
  // share) and returns it. Owned objects are destroyed after every controller has stopped.
  template <typename T>
  T& own(std::unique_ptr<T> object) {
    T& ref = *object;
    owned_.push_back(std::shared_ptr<void>(std::move(object)));
    return ref;
  }

  // A controller over `reconciler` (which must outlive it: own() it) as the next component.
  Controller& add_controller(Reconciler& reconciler, std::string name, int workers);
  Controller& add_controller(Reconciler& reconciler, ControllerOptions options);

  // A component that is not a controller: `start` runs in order with the controllers (after
  // every earlier one started), `stop` in reverse order. Either may be empty.
  void add_runnable(std::string name, std::function<Status()> start,
                    std::function<void()> stop = {});

  // start_caches(), then start_components().
  Status start();
  // Starts every informer (idempotent); returns without waiting for their first list.
  void start_caches();
  // Starts the components in order. On a failure, stops those already started and returns it.
  // Idempotent while running. A controller's queue does not survive its stop, so components
  // once stopped do not start again: an Internal error; build a new manager.
  Status start_components();
  // Stops the components in reverse order; the caches keep running. Idempotent.
  void stop_components();
  // stop_components(), then every informer. Idempotent.
  void stop();

  // True while the components run (start_components() succeeded and no stop since).
  bool running() const;
  // True once every informer has delivered its first list, whether or not the components run:
  // a standby's caches are warm (it can take over at once).
  bool caches_synced() const;
  // True while running and caches_synced().
  bool healthy() const;
  // The components' names in start order (controllers by their ControllerOptions::name).
  std::vector<std::string> component_names() const;
  // The slowest components of the last start_components(), slowest first, at most `count`:
  // "pod-webhook certificates 240 ms, host IPAM 35 ms" ("" when none took 10 ms). What a
  // takeover's start spent its time on.
  std::string slowest_starts(std::size_t count = 3) const;

 private:
  struct Component {
    std::string name;
    std::function<Status()> start;
    std::function<void()> stop;
  };
  // An informer's identity: the collection and the selectors that narrow it.
  using InformerKey = std::tuple<std::string, std::string, std::string>;

  // Stops components [0, count) in reverse order; lifecycle_mu_ held.
  void stop_started(std::size_t count);

  std::shared_ptr<DynamicClient> client_;
  // Declared before what uses them, so destroyed after: informers outlive the reconcilers and
  // controllers that hold references to their stores.
  std::map<InformerKey, std::unique_ptr<Informer>> informers_;
  std::vector<std::shared_ptr<void>> owned_;
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::vector<Component> components_;

  // Guards the registries above; not held while a component starts (a controller may wait
  // minutes for its caches), so running(), caches_synced() and healthy() answer /readyz at once
  // meanwhile.
  mutable std::mutex mu_;
  std::mutex lifecycle_mu_;  // serialises start and stop
  std::size_t started_ = 0;  // components started, a prefix of components_
  std::vector<std::pair<std::string, std::chrono::milliseconds>> start_times_;  // lifecycle_mu_
  std::atomic<bool> running_{false};
  bool stopped_ = false;  // components were stopped once; they cannot start again
};

}  // namespace fed::kube
