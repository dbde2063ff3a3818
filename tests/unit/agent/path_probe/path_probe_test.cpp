// The join probe's two ends over loopback: with a token the listener answers only the dialler
// that sends it, and anything else that connects learns nothing.

#include "agent/path_probe/path_probe.hpp"

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
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

}  // namespace

TEST_CASE("a probe listener with a token answers only the dialler that sends it") {
  const std::uint16_t port = free_port();
  std::jthread listener([port] { (void)fed::probe::listen(port, "c1", 6s, "s3cret"); });
  const auto answered = [port](std::chrono::milliseconds timeout) {
    auto answer = fed::probe::dial("127.0.0.1", port, timeout, "s3cret");
    REQUIRE_MESSAGE(answer, (answer ? "" : answer.error().message()));
    auto seen = fed::fedapi::parse_probe_answer(*answer);
    REQUIRE(seen);
    CHECK(*seen == "127.0.0.1");  // the source it saw
  };

  answered(3s);
  // No token, a wrong one: closed unanswered, however long the dialler retries.
  auto none = fed::probe::dial("127.0.0.1", port, 1500ms);
  REQUIRE_FALSE(none);
  CHECK(none.error().message().find("no answer from 127.0.0.1") != std::string::npos);
  CHECK_FALSE(fed::probe::dial("127.0.0.1", port, 1s, "s3cre7"));
  // A connection that sends nothing is dropped after the token wait; the next one is served.
  auto silent = fed::etcdproxy::dial_tcp({"127.0.0.1", port}, 1s);
  REQUIRE(silent);
  answered(3s);
}
