#pragma once
// Runs an undo action at scope exit unless cancel() was called: for multi-step changes
// that must roll back when a later step fails.

#include <functional>
#include <utility>

namespace fed {

class Cleanup final {
 public:
  explicit Cleanup(std::function<void()> f) : f_(std::move(f)) {}
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;
  ~Cleanup() {
    if (f_) f_();
  }
  // Keeps the change: the undo action will not run.
  void cancel() { f_ = nullptr; }

 private:
  std::function<void()> f_;
};

}  // namespace fed
