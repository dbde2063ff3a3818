#include "shared/kube/controller.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "shared/kube/informer.hpp"

namespace fed::kube {

Controller::Controller(Reconciler& reconciler, ControllerOptions options)
    : reconciler_(reconciler),
      name_(std::move(options.name)),
      workers_(std::max(options.workers, 1)),
      sync_timeout_(options.cache_sync_timeout),
      queue_(std::make_shared<WorkQueue>(options.rate_limiter
                                             ? std::move(options.rate_limiter)
                                             : default_controller_rate_limiter())) {}

Controller::~Controller() {
  stop();
}

void Controller::watch(Informer& informer) {
  watch(informer, [](const nlohmann::json& o) { return std::vector<Request>{request_for(o)}; });
}

void Controller::watch(Informer& informer, EventMapper mapper) {
  informer.add_handlers(handlers(std::move(mapper)));
  std::lock_guard lock(mu_);
  informers_.push_back(&informer);
}

EventHandlers Controller::handlers(EventMapper mapper) {
  std::weak_ptr<WorkQueue> weak = queue_;
  auto enqueue = [weak, mapper = std::move(mapper)](const ObjectPtr& o) {
    auto q = weak.lock();
    if (!q || !o) return;
    for (const auto& r : mapper(*o)) q->add(r);
  };
  EventHandlers h;
  h.on_add = enqueue;
  h.on_update = [enqueue](const ObjectPtr& old_o, const ObjectPtr& new_o) {
    if (old_o != new_o) enqueue(old_o);
    enqueue(new_o);
  };
  h.on_delete = enqueue;
  return h;
}

Status Controller::start() {
  std::vector<Informer*> informers;
  {
    std::lock_guard lock(mu_);
    if (!threads_.empty()) return ok();
    informers = informers_;
  }
  for (Informer* inf : informers) {
    if (!inf->wait_for_sync(sync_timeout_)) {
      return fail(ErrorCode::Unavailable,
                  "controller " + name_ + ": the cache of " + inf->collection().to_string() +
                      " did not sync within " + std::to_string(sync_timeout_.count()) +
                      " ms; check that the API server is reachable and the resource is served");
    }
  }
  std::lock_guard lock(mu_);
  if (!threads_.empty() || queue_->shutting_down()) return ok();
  for (int i = 0; i < workers_; ++i) threads_.emplace_back([this] { worker(); });
  spdlog::debug("controller {}: started {} workers", name_, workers_);
  return ok();
}

void Controller::stop() {
  queue_->shut_down(Drain::No);
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
}

void Controller::worker() {
  while (auto request = queue_->get()) {
    process(*request);
    queue_->done(*request);
  }
}

void Controller::process(const Request& request) {
  std::optional<Result<Requeue>> result;
  try {
    result.emplace(reconciler_.reconcile(request));
  } catch (const std::exception& e) {
    // Exceptions must not cross modules; a reconciler that leaks one is a bug, but one key
    // must not take the whole controller down.
    result.emplace(fail(ErrorCode::Internal, std::string("uncaught exception: ") + e.what()));
  } catch (...) {
    result.emplace(fail(ErrorCode::Internal, "uncaught non-standard exception"));
  }
  const Result<Requeue>& r = *result;
  const std::string key = to_string(request);
  if (!r) {
    if (r.error().code() == ErrorCode::Invalid) {
      spdlog::error("{}: reconcile {}: {} (not retried until the object changes)", name_, key,
                    r.error().message());
      queue_->forget(request);
    } else {
      spdlog::warn("{}: reconcile {} failed (attempt {}): {}", name_, key,
                   queue_->num_requeues(request) + 1, r.error().message());
      queue_->add_rate_limited(request);
    }
    return;
  }
  if (r->after.count() > 0) {
    queue_->forget(request);
    queue_->add_after(request, r->after);
  } else if (r->requeue) {
    queue_->add_rate_limited(request);
  } else {
    queue_->forget(request);
  }
}

std::unique_ptr<Controller> make_controller(Reconciler& reconciler, std::string name, int workers) {
  ControllerOptions options;
  options.name = std::move(name);
  options.workers = workers;
  return std::make_unique<Controller>(reconciler, std::move(options));
}

}  // namespace fed::kube
