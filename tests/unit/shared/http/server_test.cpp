#include "shared/http/server.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/unit/shared/http/test_client.hpp"

using namespace std::chrono_literals;
using fed::http::Request;
using fed::http::Response;
using fed::http::Server;
using fed::http::ServerOptions;
using fed::http::test::body_of;
using fed::http::test::get;
using fed::http::test::send_raw;
using fed::http::test::status_line;

namespace {

ServerOptions loopback() {
  ServerOptions o;
  o.bind_address = "127.0.0.1:0";
  o.name = "test";
  return o;
}

std::unique_ptr<Server> started(ServerOptions options) {
  auto server = Server::create(std::move(options));
  REQUIRE(server.has_value());
  auto s = std::move(server).value();
  s->handle("/healthz", [](const Request&) { return Response::text(200, "ok"); });
  s->handle("/echo",
            [](const Request& r) {
              return Response::json(201, "{\"path\":\"" + r.path + "\",\"query\":\"" + r.query +
                                             "\",\"body\":\"" + r.body + "\"}");
            },
            {"POST"});
  s->handle("/throws", [](const Request&) -> Response { throw std::runtime_error("boom"); });
  REQUIRE(s->start().has_value());
  REQUIRE(s->port() != 0);
  return s;
}

}  // namespace

TEST_CASE("serves registered paths on an ephemeral loopback port") {
  auto server = started(loopback());
  CHECK(server->local_address() == "127.0.0.1:" + std::to_string(server->port()));

  const std::string answer = get(server->port(), "/healthz");
  CHECK(answer ==
        "HTTP/1.1 200 OK\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "Content-Length: 3\r\n"
        "Connection: close\r\n"
        "\r\n"
        "ok\n");

  const std::string head = send_raw(server->port(), "HEAD /healthz HTTP/1.1\r\n\r\n");
  CHECK(status_line(head) == "HTTP/1.1 200 OK");
  CHECK(head.find("Content-Length: 3\r\n") != std::string::npos);
  CHECK(body_of(head).empty());

  const std::string posted =
      send_raw(server->port(), "POST /echo?dry=1 HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
  CHECK(status_line(posted) == "HTTP/1.1 201 Created");
  CHECK(posted.find("Content-Type: application/json\r\n") != std::string::npos);
  CHECK(body_of(posted) == "{\"path\":\"/echo\",\"query\":\"dry=1\",\"body\":\"hello\"}");
}

TEST_CASE("unknown paths, wrong methods and throwing handlers get 404, 405 and 500") {
  auto server = started(loopback());
  CHECK(status_line(get(server->port(), "/nope")) == "HTTP/1.1 404 Not Found");
  const std::string wrong = send_raw(server->port(), "DELETE /healthz HTTP/1.1\r\n\r\n");
  CHECK(status_line(wrong) == "HTTP/1.1 405 Method Not Allowed");
  CHECK(wrong.find("Allow: GET, HEAD\r\n") != std::string::npos);
  CHECK(status_line(get(server->port(), "/throws")) == "HTTP/1.1 500 Internal Server Error");
  // The server is still healthy afterwards.
  CHECK(status_line(get(server->port(), "/healthz")) == "HTTP/1.1 200 OK");
}

TEST_CASE("prefix routes: the longest prefix wins, an exact route beats any prefix") {
  auto created = Server::create(loopback());
  REQUIRE(created);
  auto server = std::move(created).value();
  const auto named = [](std::string name) {
    return [name](const Request& r) { return Response::text(200, name + " " + r.path); };
  };
  server->handle_prefix("/logs/", named("logs"));
  server->handle_prefix("/logs/kube-system/", named("system"));
  server->handle_prefix("/exec/", named("exec"), {"POST"});
  server->handle("/logs/exact", named("exact"));
  REQUIRE(server->start());

  CHECK(body_of(get(server->port(), "/logs/default/pod/c?follow=true")) ==
        "logs /logs/default/pod/c\n");
  CHECK(body_of(get(server->port(), "/logs/kube-system/dns/c")) ==
        "system /logs/kube-system/dns/c\n");
  CHECK(body_of(get(server->port(), "/logs/kube-system/")) == "system /logs/kube-system/\n");
  CHECK(body_of(get(server->port(), "/logs/exact")) == "exact /logs/exact\n");
  CHECK(body_of(get(server->port(), "/logs/exact/more")) == "logs /logs/exact/more\n");
  CHECK(status_line(get(server->port(), "/logs")) == "HTTP/1.1 404 Not Found");
  CHECK(status_line(get(server->port(), "/other/logs/x")) == "HTTP/1.1 404 Not Found");
  const std::string wrong = get(server->port(), "/exec/ns/pod");
  CHECK(status_line(wrong) == "HTTP/1.1 405 Method Not Allowed");
  CHECK(wrong.find("Allow: POST\r\n") != std::string::npos);
}

TEST_CASE("plain HTTP requests carry no peer identity") {
  auto created = Server::create(loopback());
  REQUIRE(created);
  auto server = std::move(created).value();
  server->handle("/who", [](const Request& r) {
    return Response::text(200, r.peer ? "peer " + r.peer->common_name : "anonymous");
  });
  REQUIRE(server->start());
  CHECK(body_of(get(server->port(), "/who")) == "anonymous\n");
}

TEST_CASE("limits: oversized heads get 431, oversized bodies 413, chunked bodies 411") {
  ServerOptions o = loopback();
  o.max_header_bytes = 256;
  o.max_body_bytes = 8;
  auto server = started(o);
  const std::string big_header =
      "GET /healthz HTTP/1.1\r\nX-Pad: " + std::string(1000, 'a') + "\r\n\r\n";
  CHECK(status_line(send_raw(server->port(), big_header)) ==
        "HTTP/1.1 431 Request Header Fields Too Large");
  const std::string big_body =
      send_raw(server->port(), "POST /echo HTTP/1.1\r\nContent-Length: 9\r\n\r\n123456789");
  CHECK(status_line(big_body) == "HTTP/1.1 413 Content Too Large");
  CHECK(body_of(big_body) == "request body of 9 bytes exceeds the limit of 8\n");
  CHECK(
      status_line(send_raw(server->port(),
                           "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")) ==
      "HTTP/1.1 411 Length Required");
  const std::string bad = send_raw(server->port(), "GARBAGE\r\n\r\n");
  CHECK(status_line(bad) == "HTTP/1.1 400 Bad Request");
  CHECK(body_of(bad).find("malformed request") == 0);
}

TEST_CASE("a request that arrives slowly in pieces is assembled") {
  auto server = started(loopback());
  auto fd = fed::http::test::connect_loopback(server->port());
  REQUIRE(fd.valid());
  for (const char* piece : {"POST /ec", "ho HTTP/1.1\r\nContent-Le", "ngth: 2\r\n\r", "\nh", "i"}) {
    ::send(fd.get(), piece, std::char_traits<char>::length(piece), MSG_NOSIGNAL);
    std::this_thread::sleep_for(20ms);
  }
  std::string out;
  char buf[1024];
  ssize_t r = 0;
  while ((r = ::recv(fd.get(), buf, sizeof buf, 0)) > 0)
    out.append(buf, static_cast<std::size_t>(r));
  CHECK(body_of(out) == "{\"path\":\"/echo\",\"query\":\"\",\"body\":\"hi\"}");
}

TEST_CASE("idle clients time out") {
  ServerOptions o = loopback();
  o.io_timeout = 200ms;
  auto server = started(o);
  auto fd = fed::http::test::connect_loopback(server->port());
  ::send(fd.get(), "GET /hea", 8, MSG_NOSIGNAL);
  const auto t0 = std::chrono::steady_clock::now();
  char buf[256];
  std::string out;
  ssize_t r = 0;
  while ((r = ::recv(fd.get(), buf, sizeof buf, 0)) > 0)
    out.append(buf, static_cast<std::size_t>(r));
  CHECK(status_line(out) == "HTTP/1.1 408 Request Timeout");
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
}

TEST_CASE("concurrent clients are all served") {
  auto server = started(loopback());
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 16; ++i) {
    clients.emplace_back([&] {
      for (int j = 0; j < 10; ++j) {
        if (status_line(get(server->port(), "/healthz")) == "HTTP/1.1 200 OK") ++ok;
      }
    });
  }
  for (auto& c : clients) c.join();
  CHECK(ok == 160);
}

TEST_CASE("connections beyond the cap get 503") {
  ServerOptions o = loopback();
  o.max_connections = 1;
  auto server = started(o);
  auto idle = fed::http::test::connect_loopback(server->port());  // holds the only slot
  std::this_thread::sleep_for(100ms);
  // The refusal is written at once, before the request is read: read it without sending one,
  // as a client whose request crossed the close could see a reset instead.
  auto second = fed::http::test::connect_loopback(server->port());
  std::string out;
  char buf[512];
  ssize_t r = 0;
  while ((r = ::recv(second.get(), buf, sizeof buf, 0)) > 0)
    out.append(buf, static_cast<std::size_t>(r));
  CHECK(status_line(out) == "HTTP/1.1 503 Service Unavailable");
}

TEST_CASE("stop() wakes idle connections, finishes answers in flight and is idempotent") {
  auto created = Server::create(loopback());
  REQUIRE(created);
  auto server = std::move(created).value();
  std::atomic<bool> in_handler{false};
  server->handle("/slow", [&](const Request&) {
    in_handler = true;
    std::this_thread::sleep_for(300ms);
    return Response::text(200, "done");
  });
  REQUIRE(server->start());
  auto idle = fed::http::test::connect_loopback(server->port());
  std::string slow_answer;
  std::thread slow([&] { slow_answer = get(server->port(), "/slow"); });
  while (!in_handler) std::this_thread::sleep_for(5ms);
  const auto t0 = std::chrono::steady_clock::now();
  server->stop();
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
  slow.join();
  CHECK(body_of(slow_answer) == "done\n");
  server->stop();
  CHECK(fed::http::test::connect_loopback(server->port()).valid() == false);
}

TEST_CASE("bad options and taken ports are reported") {
  ServerOptions o = loopback();
  o.bind_address = "127.0.0.1";
  auto missing_port = Server::create(o);
  REQUIRE_FALSE(missing_port);
  CHECK(missing_port.error().message() ==
        "bind address \"127.0.0.1\": missing port (use host:port, e.g. 0.0.0.0:9440, "
        "127.0.0.1:0 or [::1]:9440)");
  o.bind_address = "127.0.0.1:99999";
  CHECK_FALSE(Server::create(o));
  o.bind_address = "::1:80";
  CHECK(Server::create(o).error().message().find("brackets") != std::string::npos);

  auto first = started(loopback());
  ServerOptions same = loopback();
  same.bind_address = first->local_address();
  auto second = Server::create(same);
  REQUIRE(second);
  auto status = (*second)->start();
  REQUIRE_FALSE(status);
  CHECK(status.error().code() == fed::ErrorCode::Unavailable);
  CHECK(status.error().message().find("Address already in use") != std::string::npos);
}
