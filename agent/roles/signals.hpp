#pragma once
// Delivers SIGTERM and SIGINT through a signalfd so the main loop reads them as data; no work
// runs in a signal handler.

#include <chrono>
#include <optional>

#include "shared/raii/fd.hpp"
#include "shared/result/result.hpp"

namespace fed::agent {

class ShutdownSignals final {
 public:
  // Blocks SIGTERM and SIGINT in the calling thread and opens the signalfd. Create it before
  // any other thread starts, so that every thread inherits the mask and the signal reaches
  // the fd instead of a random thread's default action.
  static Result<ShutdownSignals> install();

  // Waits up to `timeout` for a signal; its number, or empty on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  // The signalfd, readable once a signal is pending: for callers that poll other fds too.
  int fd() const { return fd_.get(); }

 private:
  explicit ShutdownSignals(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;
};

}  // namespace fed::agent
