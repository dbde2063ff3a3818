#pragma once
// The one reconcile shape used across the project (controller-runtime's): a request is only a
// key, the reconciler reads current state itself, and the result may ask for a requeue.
// This header has no HTTP dependency so node-side modules can implement Reconciler freely.

#include <chrono>
#include <string>
#include <tuple>

#include "shared/result/result.hpp"

namespace fed::kube {

// The key of the object to reconcile; `ns` is empty for cluster-scoped objects.
struct Request {
  std::string ns, name;

  friend bool operator==(const Request& a, const Request& b) {
    return a.ns == b.ns && a.name == b.name;
  }
  friend bool operator<(const Request& a, const Request& b) {
    return std::tie(a.ns, a.name) < std::tie(b.ns, b.name);
  }
};

// "ns/name", or "name" when cluster-scoped: the form used in logs and store keys.
inline std::string to_string(const Request& r) {
  return r.ns.empty() ? r.name : r.ns + "/" + r.name;
}

// What to do after a successful reconcile: nothing (default), requeue after a delay, or
// requeue with the queue's rate-limited backoff (`requeue` with `after` == 0).
struct Requeue {
  std::chrono::milliseconds after{0};
  bool requeue = false;
};

// Drives one object towards its desired state. An error with ErrorCode::Invalid is terminal
// (logged, not retried); any other error is retried with per-key exponential backoff.
class Reconciler {
 public:
  virtual ~Reconciler() = default;
  virtual Result<Requeue> reconcile(const Request& request) = 0;
};

}  // namespace fed::kube
