// The join probe's two ends over loopback: with a token the listener answers only the dialler
// that sends it, and anything else that connects learns nothing.

#include "agent/path_probe/path_probe.hpp"

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "agent/etcdproxy/socket_util.hpp"
#include "shared/fedapi/probe_answer.hpp"

using namespace std::chrono_literals;

namespace {

// A port nothing listens on now (the kernel's pick for a socket closed at once).
std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

// A listener on its own thread, stopped the way a pod's is (SIGTERM, which its thread blocks
// and reads from its signalfd) whatever the test's outcome. The signal is blocked here before
// the thread starts, so that it inherits the mask even before listen() installs its own.
class ListenerThread {
 public:
  ListenerThread(std::uint16_t port, const char* token) {
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &term, &old_);
    thread_ = std::thread([port, token] { (void)fed::probe::listen(port, "c1", 60s, token); });
  }
  ~ListenerThread() {
    ::pthread_kill(thread_.native_handle(), SIGTERM);
    thread_.join();
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t old_{};
  std::thread thread_;
};

}  // namespace

TEST_CASE("a probe listener with a token answers only the dialler that sends it") {
  const std::uint16_t port = free_port();
  ListenerThread listener(port, "s3cret");
  const auto answered = [port](std::chrono::milliseconds timeout) {
    auto answer = fed::probe::dial("127.0.0.1", port, timeout, "s3cret");
    REQUIRE_MESSAGE(answer, (answer ? "" : answer.error().message()));
    auto seen = fed::fedapi::parse_probe_answer(*answer);
    REQUIRE(seen);
    CHECK(*seen == "127.0.0.1");  // the source it saw
  };

  answered(10s);
  // No token, a wrong one: closed unanswered, however long the dialler retries.
  auto none = fed::probe::dial("127.0.0.1", port, 1500ms);
  REQUIRE_FALSE(none);
  CHECK(none.error().message().find("no answer from 127.0.0.1") != std::string::npos);
  CHECK_FALSE(fed::probe::dial("127.0.0.1", port, 1s, "s3cre7"));
  // A connection that sends nothing is dropped after the token wait; the next one is served.
  auto silent = fed::etcdproxy::dial_tcp({"127.0.0.1", port}, 1s);
  REQUIRE(silent);
  answered(10s);
}
