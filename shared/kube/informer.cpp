#include "shared/kube/informer.hpp"

#include <spdlog/spdlog.h>

#include <utility>

#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/interruptible_sleep.hpp"

namespace fed::kube {

Informer::Informer(std::shared_ptr<DynamicClient> client, ResourceRef collection,
                   InformerOptions options)
    : client_(std::move(client)),
      collection_(collection.collection()),
      options_(std::move(options)) {
  options_.list_watch.label_selector = options_.label_selector;
  options_.list_watch.field_selector = options_.field_selector;
}

Informer::~Informer() {
  stop();
}

void Informer::add_handlers(EventHandlers handlers) {
  std::lock_guard lock(dispatch_mu_);
  if (synced_.load() && handlers.on_add) {
    for (const auto& o : store_.list()) handlers.on_add(o);
  }
  handlers_.push_back(std::move(handlers));
}

void Informer::start() {
  std::lock_guard lock(run_mu_);
  if (watch_thread_.joinable()) return;
  watch_thread_ = std::jthread([this](std::stop_token stop) {
    ListWatchHandlers h;
    h.on_list = [this](std::vector<nlohmann::json>&& items, const std::string&) {
      on_list(std::move(items));
    };
    h.on_event = [this](WatchEvent&& ev) { on_event(std::move(ev)); };
    list_and_watch(*client_, collection_, options_.list_watch, h, stop);
  });
  if (options_.resync_period.count() > 0) {
    resync_thread_ = std::jthread([this](std::stop_token stop) { resync_loop(stop); });
  }
}

void Informer::stop() {
  std::lock_guard lock(run_mu_);
  watch_thread_.request_stop();
  resync_thread_.request_stop();
  if (watch_thread_.joinable()) watch_thread_.join();
  if (resync_thread_.joinable()) resync_thread_.join();
  watch_thread_ = std::jthread();
  resync_thread_ = std::jthread();
}

bool Informer::wait_for_sync(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(sync_mu_);
  return sync_cv_.wait_for(lock, timeout, [this] { return synced_.load(); });
}

void Informer::dispatch_add(const ObjectPtr& o) {
  for (const auto& h : handlers_) {
    if (h.on_add) h.on_add(o);
  }
}

void Informer::dispatch_update(const ObjectPtr& old_o, const ObjectPtr& new_o) {
  for (const auto& h : handlers_) {
    if (h.on_update) h.on_update(old_o, new_o);
  }
}

void Informer::dispatch_delete(const ObjectPtr& o) {
  for (const auto& h : handlers_) {
    if (h.on_delete) h.on_delete(o);
  }
}

void Informer::on_list(std::vector<nlohmann::json>&& items) {
  std::vector<ObjectPtr> objects;
  objects.reserve(items.size());
  for (auto& item : items)
    objects.push_back(std::make_shared<const nlohmann::json>(std::move(item)));
  std::lock_guard lock(dispatch_mu_);
  auto diff = store_.replace(std::move(objects));
  for (const auto& o : diff.added) dispatch_add(o);
  for (const auto& [old_o, new_o] : diff.updated) dispatch_update(old_o, new_o);
  for (const auto& o : diff.deleted) dispatch_delete(o);
  if (!synced_.load()) {
    {
      std::lock_guard sync_lock(sync_mu_);
      synced_.store(true);
    }
    sync_cv_.notify_all();
    spdlog::debug("informer {}: synced {} objects", collection_.to_string(), store_.size());
  }
}

void Informer::on_event(WatchEvent&& event) {
  auto object = std::make_shared<const nlohmann::json>(std::move(event.object));
  std::lock_guard lock(dispatch_mu_);
  switch (event.type) {
    case WatchEventType::Added:
    case WatchEventType::Modified: {
      auto old = store_.upsert(object);
      if (old) {
        dispatch_update(old, object);
      } else {
        dispatch_add(object);
      }
      break;
    }
    case WatchEventType::Deleted: {
      store_.erase(object_key(*object));
      dispatch_delete(object);  // the event carries the final state
      break;
    }
    case WatchEventType::Bookmark:
    case WatchEventType::Error:
      break;
  }
}

void Informer::resync_loop(std::stop_token stop) {
  while (sleep_unless_stopped(options_.resync_period, stop)) {
    if (!synced_.load()) continue;
    std::lock_guard lock(dispatch_mu_);
    for (const auto& o : store_.list()) dispatch_update(o, o);
  }
}

}  // namespace fed::kube
