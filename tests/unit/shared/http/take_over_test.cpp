#include <doctest/doctest.h>
#include <poll.h>

#include <chrono>
#include <string>

#include "shared/http/server.hpp"
#include "tests/unit/shared/http/test_client.hpp"

using namespace std::chrono_literals;
using fed::http::Request;
using fed::http::Response;
using fed::http::Server;
using fed::http::ServerOptions;
using fed::http::TakenConnection;
using fed::http::test::connect_loopback;
using fed::http::test::read_to_end;
using fed::http::test::read_until;
using fed::http::test::send_all;

namespace {

std::unique_ptr<Server> started(fed::http::Handler handler) {
  ServerOptions o;
  o.bind_address = "127.0.0.1:0";
  o.name = "take-over";
  o.io_timeout = 5s;
  auto server = Server::create(o);
  REQUIRE(server);
  (*server)->handle("/upgrade", std::move(handler), {"POST"});
  REQUIRE((*server)->start());
  return std::move(server).value();
}

// A connection to `server` whose upgrade request was answered: the handler's 101 head is read.
fed::Fd upgraded(const Server& server) {
  fed::Fd fd = connect_loopback(server.port());
  REQUIRE(fd);
  send_all(fd.get(), "POST /upgrade HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  std::string raw;
  REQUIRE(read_until(fd.get(), raw, "\r\n\r\n"));
  CHECK(raw == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\n\r\n");
  return fd;
}

// The handler's side of an upgraded echo: its own 101 head, then every byte back upper-cased
// until the client half-closes.
void echo_upper(TakenConnection& c) {
  if (!c.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\n\r\n")) return;
  std::string in;
  while (true) {
    in.clear();
    const auto r = c.read_available(in);
    for (auto& ch : in) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (!in.empty() && !c.write(in)) return;
    if (r == TakenConnection::Read::Closed) return;
    if (r == TakenConnection::Read::Idle) {
      pollfd fds[2] = {{c.fd(), POLLIN, 0}, {c.stop_fd(), POLLIN, 0}};
      ::poll(fds, 2, 1000);
      if ((fds[1].revents & POLLIN) != 0) return;
    }
  }
}

}  // namespace

TEST_CASE("a taken-over connection carries raw bytes both ways after the handler's own head") {
  auto server = started([](const Request&) {
    Response r;
    r.body = "never sent";
    r.take_over = echo_upper;
    return r;
  });
  fed::Fd fd = upgraded(*server);
  std::string raw;
  // Several exchanges on the same connection: the server neither answers nor closes by itself.
  for (const std::string word : {"spdy", "frames", "pass"}) {
    raw.clear();
    send_all(fd.get(), word);
    std::string upper = word;
    for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    REQUIRE(read_until(fd.get(), raw, upper));
    CHECK(raw == upper);
  }
  ::shutdown(fd.get(), SHUT_WR);
  raw.clear();
  read_to_end(fd.get(), raw);
  CHECK(raw.empty());  // closed by the server once the handler returned, with nothing added
}

TEST_CASE("stop() ends a taken-over connection that would never end on its own") {
  auto server = started([](const Request&) {
    Response r;
    r.take_over = echo_upper;
    return r;
  });
  fed::Fd fd = upgraded(*server);
  std::string raw;
  const auto before = std::chrono::steady_clock::now();
  server->stop();
  CHECK(std::chrono::steady_clock::now() - before < 3s);
  raw.clear();
  read_to_end(fd.get(), raw);  // the server closed it
  CHECK(raw.empty());
}
