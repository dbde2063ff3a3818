#include "agent/roles/signals.hpp"

#include <poll.h>
#include <sys/signalfd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

namespace fed::agent {

Result<ShutdownSignals> ShutdownSignals::install() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  if (const int err = ::pthread_sigmask(SIG_BLOCK, &set, nullptr); err != 0) {
    return fail(ErrorCode::Internal, std::string("blocking SIGTERM/SIGINT: ") + std::strerror(err));
  }
  Fd fd(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!fd) return fail(ErrorCode::Internal, std::string("signalfd: ") + std::strerror(errno));
  return ShutdownSignals(std::move(fd));
}

std::optional<int> ShutdownSignals::wait(std::chrono::milliseconds timeout) {
  pollfd p{fd_.get(), POLLIN, 0};
  const int n = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (n <= 0) return std::nullopt;
  signalfd_siginfo info{};
  if (::read(fd_.get(), &info, sizeof info) != static_cast<ssize_t>(sizeof info)) {
    return std::nullopt;
  }
  return static_cast<int>(info.ssi_signo);
}

}  // namespace fed::agent
