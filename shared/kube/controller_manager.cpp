#include "shared/kube/controller_manager.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "shared/kube/dynamic_client.hpp"

namespace fed::kube {
namespace {

constexpr std::chrono::milliseconds kSlowStart{500};

}  // namespace

ControllerManager::ControllerManager(std::shared_ptr<DynamicClient> client)
    : client_(std::move(client)) {}

ControllerManager::~ControllerManager() {
  stop();
  // Controllers go first: their workers call reconcilers, which read informers' stores.
  controllers_.clear();
  components_.clear();
  while (!owned_.empty()) owned_.pop_back();  // reverse order of creation
}

Informer& ControllerManager::informer(const ResourceRef& collection, InformerOptions options) {
  InformerKey key{collection.to_string(), options.label_selector, options.field_selector};
  std::lock_guard lock(mu_);
  auto it = informers_.find(key);
  if (it == informers_.end()) {
    it = informers_
             .emplace(std::move(key),
                      std::make_unique<Informer>(client_, collection, std::move(options)))
             .first;
  }
  return *it->second;
}

Controller& ControllerManager::add_controller(Reconciler& reconciler, std::string name,
                                              int workers) {
  ControllerOptions options;
  options.name = std::move(name);
  options.workers = workers;
  return add_controller(reconciler, std::move(options));
}

Controller& ControllerManager::add_controller(Reconciler& reconciler, ControllerOptions options) {
  std::string name = options.name;
  auto controller = std::make_unique<Controller>(reconciler, std::move(options));
  Controller* c = controller.get();
  std::lock_guard lock(mu_);
  controllers_.push_back(std::move(controller));
  components_.push_back(Component{std::move(name), [c] { return c->start(); }, [c] { c->stop(); }});
  return *c;
}

void ControllerManager::add_runnable(std::string name, std::function<Status()> start,
                                     std::function<void()> stop) {
  std::lock_guard lock(mu_);
  components_.push_back(Component{std::move(name), std::move(start), std::move(stop)});
}

Status ControllerManager::start() {
  start_caches();
  return start_components();
}

void ControllerManager::start_caches() {
  std::lock_guard lock(mu_);  // Informer::start() only spawns its threads
  for (auto& [key, informer] : informers_) informer->start();
}

Status ControllerManager::start_components() {
  std::lock_guard lifecycle(lifecycle_mu_);
  if (running_) return ok();
  start_times_.clear();
  if (stopped_) {
    return fail(ErrorCode::Internal,
                "controller manager: its components were stopped and cannot start again");
  }
  for (;;) {
    Component c;
    {
      std::lock_guard lock(mu_);
      if (started_ == components_.size()) break;
      c = components_[started_];
    }
    if (c.start) {
      const auto began = std::chrono::steady_clock::now();
      if (auto started = c.start(); !started) {
        spdlog::error("controller manager: {} did not start: {}", c.name,
                      started.error().message());
        stop_started(started_);
        return fail(started.error().code(), c.name + ": " + started.error().message());
      }
      // A takeover waits for every component: one slow to start is worth a line.
      const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - began);
      start_times_.emplace_back(c.name, took);
      if (took >= kSlowStart) {
        spdlog::warn("controller manager: {} took {} ms to start", c.name, took.count());
      }
    }
    ++started_;
  }
  running_ = true;
  spdlog::debug("controller manager: {} components running", started_);
  return ok();
}

void ControllerManager::stop_started(std::size_t count) {
  running_ = false;
  stopped_ = true;
  std::vector<std::function<void()>> stops;
  {
    std::lock_guard lock(mu_);
    for (std::size_t i = count; i > 0; --i) stops.push_back(components_[i - 1].stop);
  }
  for (auto& stop : stops) {
    if (stop) stop();
  }
  started_ = 0;
}

void ControllerManager::stop_components() {
  std::lock_guard lifecycle(lifecycle_mu_);
  stop_started(started_);
}

void ControllerManager::stop() {
  std::lock_guard lifecycle(lifecycle_mu_);
  stop_started(started_);
  std::lock_guard lock(mu_);
  for (auto& [key, informer] : informers_) informer->stop();
}

bool ControllerManager::running() const {
  return running_;
}

bool ControllerManager::caches_synced() const {
  std::lock_guard lock(mu_);
  for (const auto& [key, informer] : informers_) {
    if (!informer->has_synced()) return false;
  }
  return true;
}

bool ControllerManager::healthy() const {
  return running_ && caches_synced();
}

std::vector<std::string> ControllerManager::component_names() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> names;
  names.reserve(components_.size());
  for (const auto& c : components_) names.push_back(c.name);
  return names;
}

std::string ControllerManager::slowest_starts(std::size_t count) const {
  auto times = start_times_;
  std::stable_sort(times.begin(), times.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (std::size_t i = 0; i < times.size() && i < count; ++i) {
    if (times[i].second < std::chrono::milliseconds(10)) break;
    if (!out.empty()) out += ", ";
    out += times[i].first + " " + std::to_string(times[i].second.count()) + " ms";
  }
  return out;
}

}  // namespace fed::kube
