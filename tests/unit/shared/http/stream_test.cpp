#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>

#include "shared/http/server.hpp"
#include "tests/unit/shared/http/test_client.hpp"

using namespace std::chrono_literals;
using fed::http::ChunkWriter;
using fed::http::Request;
using fed::http::Response;
using fed::http::Server;
using fed::http::ServerOptions;
using fed::http::test::body_of;
using fed::http::test::connect_loopback;
using fed::http::test::decode_chunked;
using fed::http::test::read_to_end;
using fed::http::test::read_until;
using fed::http::test::send_all;
using fed::http::test::send_raw;
using fed::http::test::status_line;

namespace {

std::unique_ptr<Server> unstarted(std::chrono::milliseconds io_timeout = 10s) {
  ServerOptions o;
  o.bind_address = "127.0.0.1:0";
  o.name = "stream";
  o.io_timeout = io_timeout;
  auto server = Server::create(o);
  REQUIRE(server);
  return std::move(server).value();
}

// A streamed response whose body must never be sent.
Response streamed(std::function<void(const ChunkWriter&)> stream) {
  Response r;
  r.content_type = "text/plain";
  r.headers.emplace_back("X-Stream", "yes");
  r.body = "ignored";
  r.stream = std::move(stream);
  return r;
}

}  // namespace

TEST_CASE("a streamed answer reaches the client chunk by chunk, then ends with the last chunk") {
  // State the handlers use is declared first so that it outlives the server's threads.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> refused{0};
  auto server = unstarted();
  server->handle("/follow", [&](const Request&) {
    return streamed([&, released](const ChunkWriter& write) {
      if (!write("a")) ++refused;
      // Longer than the client's 10 s read timeout, so that a server that holds "a" back fails
      // the read below rather than sending it when this wait gives up.
      released.wait_for(30s);
      if (!write("")) ++refused;
      if (!write(std::string(5000, 'b'))) ++refused;
    });
  });
  REQUIRE(server->start());

  fed::Fd fd = connect_loopback(server->port());
  REQUIRE(fd);
  send_all(fd.get(), "GET /follow HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string raw;
  // "a" arrives while the handler is still blocked: nothing is held back until the end.
  const bool a_before_release = read_until(fd.get(), raw, "\r\n\r\n1\r\na\r\n");
  release.set_value();
  REQUIRE(a_before_release);
  read_to_end(fd.get(), raw);

  CHECK(status_line(raw) == "HTTP/1.1 200 OK");
  const std::string head = raw.substr(0, raw.find("\r\n\r\n") + 2);
  CHECK(head.find("Content-Type: text/plain\r\n") != std::string::npos);
  CHECK(head.find("Transfer-Encoding: chunked\r\n") != std::string::npos);
  CHECK(head.find("Connection: close\r\n") != std::string::npos);
  CHECK(head.find("X-Stream: yes\r\n") != std::string::npos);
  CHECK(head.find("Content-Length") == std::string::npos);
  CHECK(body_of(raw).ends_with("\r\n1388\r\n" + std::string(5000, 'b') + "\r\n0\r\n\r\n"));
  CHECK(decode_chunked(body_of(raw)) == "a" + std::string(5000, 'b'));
  CHECK(refused == 0);
}

TEST_CASE("HEAD gets the streamed head without calling the stream") {
  std::atomic<bool> called{false};
  auto server = unstarted();
  server->handle("/follow", [&](const Request&) {
    return streamed([&](const ChunkWriter& write) {
      called = true;
      write("a");
    });
  });
  REQUIRE(server->start());
  const std::string raw = send_raw(server->port(), "HEAD /follow HTTP/1.1\r\n\r\n");
  CHECK(status_line(raw) == "HTTP/1.1 200 OK");
  CHECK(raw.find("Transfer-Encoding: chunked\r\n") != std::string::npos);
  CHECK(body_of(raw).empty());
  CHECK_FALSE(called);
}

TEST_CASE("a stream that throws is cut short: the client sees no last chunk") {
  auto server = unstarted();
  server->handle("/follow", [](const Request&) {
    return streamed([](const ChunkWriter& write) {
      write("partial");
      throw std::runtime_error("log source vanished");
    });
  });
  server->handle("/healthz", [](const Request&) { return Response::text(200, "ok"); });
  REQUIRE(server->start());
  const std::string raw = fed::http::test::get(server->port(), "/follow");
  CHECK(status_line(raw) == "HTTP/1.1 200 OK");
  CHECK(body_of(raw) == "7\r\npartial\r\n");
  CHECK_FALSE(decode_chunked(body_of(raw)).has_value());
  CHECK(body_of(fed::http::test::get(server->port(), "/healthz")) == "ok\n");
}

TEST_CASE("the writer returns false once the client has gone, and from then on") {
  std::promise<int> outcome;
  auto server = unstarted(2s);
  server->handle("/follow", [&](const Request&) {
    return streamed([&](const ChunkWriter& write) {
      int written = 0;
      const std::string block(64 * 1024, 'x');
      while (write(block) && written < 100'000) ++written;
      outcome.set_value(write("after") || write("") ? -1 : written);
    });
  });
  REQUIRE(server->start());
  {
    fed::Fd fd = connect_loopback(server->port());
    send_all(fd.get(), "GET /follow HTTP/1.1\r\n\r\n");
    std::string raw;
    REQUIRE(read_until(fd.get(), raw, "\r\n\r\n"));
  }  // hang up with unread data
  auto result = outcome.get_future();
  REQUIRE(result.wait_for(10s) == std::future_status::ready);
  const int written = result.get();
  CHECK(written >= 0);
  CHECK(written < 100'000);
}

TEST_CASE("stop() ends a stream that never ends on its own, promptly") {
  std::atomic<bool> returned{false};
  auto server = unstarted();
  server->handle("/follow", [&](const Request&) {
    return streamed([&](const ChunkWriter& write) {
      while (write("x")) std::this_thread::sleep_for(10ms);
      returned = true;
    });
  });
  REQUIRE(server->start());
  fed::Fd fd = connect_loopback(server->port());
  send_all(fd.get(), "GET /follow HTTP/1.1\r\n\r\n");
  std::string raw;
  REQUIRE(read_until(fd.get(), raw, "1\r\nx\r\n1\r\nx\r\n"));
  // Keep reading, as `kubectl logs -f` does, so that only the stop can end the stream.
  std::thread reader([&] { read_to_end(fd.get(), raw); });
  std::this_thread::sleep_for(50ms);
  auto stopping = std::async(std::launch::async, [&] { server->stop(); });
  const bool prompt = stopping.wait_for(1s) == std::future_status::ready;
  CHECK(prompt);
  // A server that missed the stop would stream forever: hang up so that the test fails, not
  // hangs.
  if (!prompt) ::shutdown(fd.get(), SHUT_RDWR);
  stopping.wait();
  CHECK(returned);
  reader.join();
  CHECK_FALSE(decode_chunked(body_of(raw)).has_value());  // cut, not completed
}
