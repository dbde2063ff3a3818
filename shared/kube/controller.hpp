#pragma once
// Controller: informers feed keys into a WorkQueue, and N workers call one Reconciler with
// controller-runtime's semantics — a key is never reconciled by two workers at once, errors
// back off per key (ErrorCode::Invalid is terminal: logged, not retried), success forgets the
// backoff, and Requeue asks for a delayed or rate-limited retry.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"
#include "shared/kube/work_queue.hpp"
#include "shared/result/result.hpp"

namespace fed::kube {

class Informer;

struct ControllerOptions {
  std::string name = "controller";  // for logs
  int workers = 1;
  std::unique_ptr<QueueRateLimiter> rate_limiter;  // null: default_controller_rate_limiter()
  // How long start() waits for the watched informers' first list.
  std::chrono::milliseconds cache_sync_timeout{std::chrono::minutes(2)};
};

// Maps an object seen by an informer to the keys to reconcile (e.g. its owner's key).
using EventMapper = std::function<std::vector<Request>(const nlohmann::json& object)>;

class Controller final {
 public:
  // `reconciler` must outlive the controller's workers (until stop()).
  Controller(Reconciler& reconciler, ControllerOptions options);
  // Stops the workers if running.
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Enqueues the object's own key on every add/update/delete of `informer`.
  void watch(Informer& informer);
  // Enqueues mapper(object) on every add/delete and mapper(old) + mapper(new) on update.
  void watch(Informer& informer, EventMapper mapper);
  // The handlers watch() registers, for informers that come and go while the controller runs
  // (they are not waited for by start()); they stop enqueuing once the controller is gone.
  EventHandlers handlers(EventMapper mapper);

  // Waits for every watched informer to sync (start them first), then starts the workers.
  // Unavailable when an informer does not sync within cache_sync_timeout.
  Status start();
  // Shuts the queue down (pending keys are dropped), lets in-flight reconciles finish and
  // joins the workers. Idempotent.
  void stop();

  // The queue, for enqueueing from elsewhere (timers, other event sources).
  WorkQueue& queue() { return *queue_; }
  const std::string& name() const { return name_; }

 private:
  void worker();
  void process(const Request& request);

  Reconciler& reconciler_;
  std::string name_;
  int workers_;
  std::chrono::milliseconds sync_timeout_;
  // Shared with the informer handlers, which may outlive this controller: after stop() their
  // adds go to a shut-down queue and are ignored.
  std::shared_ptr<WorkQueue> queue_;
  std::vector<Informer*> informers_;
  std::mutex mu_;
  std::vector<std::thread> threads_;
};

// A controller named `name` with `workers` workers and the default rate limiter.
std::unique_ptr<Controller> make_controller(Reconciler& reconciler, std::string name, int workers);

}  // namespace fed::kube
