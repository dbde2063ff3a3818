#pragma once
// Informer: keeps an ObjectStore in sync with one resource collection (list + watch, relist on
// 410, periodic resync) and tells registered handlers about adds, updates and deletes. The
// controllers of one process share informers; handlers only map objects to keys and enqueue.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "shared/kube/object_store.hpp"
#include "shared/kube/resource_ref.hpp"
#include "shared/kube/watch.hpp"

namespace fed::kube {

class DynamicClient;

struct EventHandlers {
  std::function<void(const ObjectPtr& object)> on_add;
  std::function<void(const ObjectPtr& old_object, const ObjectPtr& new_object)> on_update;
  // The last known state of the deleted object.
  std::function<void(const ObjectPtr& object)> on_delete;
};

struct InformerOptions {
  std::string label_selector;
  std::string field_selector;
  // Every period, on_update(obj, obj) is called for every cached object so level-triggered
  // controllers re-check everything. 0 = never.
  std::chrono::milliseconds resync_period{0};
  ListWatchOptions list_watch;  // page size, watch timeouts, backoff (selectors come from above)
};

class Informer final {
 public:
  // Watches `collection` (name empty; ns empty = all namespaces) through `client`.
  Informer(std::shared_ptr<DynamicClient> client, ResourceRef collection,
           InformerOptions options = {});
  // Stops and joins the threads if still running.
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Registers handlers. Handlers added after the first list first receive on_add for every
  // cached object. Handlers run one at a time, on the informer's threads.
  void add_handlers(EventHandlers handlers);

  // Starts the list/watch and resync threads. Idempotent.
  void start();
  // Requests stop and joins the threads (an open watch ends within milliseconds).
  void stop();

  // True once the first list has been stored and its events delivered.
  bool has_synced() const { return synced_.load(); }
  // Waits until has_synced() or the timeout elapses; returns has_synced().
  bool wait_for_sync(std::chrono::milliseconds timeout) const;

  const ObjectStore& store() const { return store_; }
  const ResourceRef& collection() const { return collection_; }

 private:
  void on_list(std::vector<nlohmann::json>&& items);
  void on_event(WatchEvent&& event);
  void resync_loop(std::stop_token stop);
  void dispatch_add(const ObjectPtr& o);
  void dispatch_update(const ObjectPtr& old_o, const ObjectPtr& new_o);
  void dispatch_delete(const ObjectPtr& o);

  std::shared_ptr<DynamicClient> client_;
  ResourceRef collection_;
  InformerOptions options_;
  ObjectStore store_;

  std::mutex dispatch_mu_;  // serialises handler calls and handler registration
  std::vector<EventHandlers> handlers_;

  std::atomic<bool> synced_{false};
  mutable std::mutex sync_mu_;
  mutable std::condition_variable sync_cv_;

  std::mutex run_mu_;
  std::jthread watch_thread_;
  std::jthread resync_thread_;
};

}  // namespace fed::kube
