#include "shared/http/request_parser.hpp"

#include <doctest/doctest.h>

#include <string>

using fed::http::find_head_end;
using fed::http::parse_request_head;

TEST_CASE("a well-formed head is split into method, path, query, headers and length") {
  const std::string raw =
      "POST /validate?timeout=10s HTTP/1.1\r\n"
      "Host: fed-manager.fed-system.svc:9443\r\n"
      "Content-Type:application/json \r\n"
      "Content-Length: 12\r\n"
      "\r\n"
      "{\"a\":1}";
  const std::size_t end = find_head_end(raw);
  REQUIRE(end == raw.size() - 7);
  auto head = parse_request_head(std::string_view(raw).substr(0, end));
  REQUIRE(head.has_value());
  CHECK(head->request.method == "POST");
  CHECK(head->request.target == "/validate?timeout=10s");
  CHECK(head->request.path == "/validate");
  CHECK(head->request.query == "timeout=10s");
  CHECK(head->request.version == "HTTP/1.1");
  CHECK(head->content_length == 12);
  CHECK_FALSE(head->chunked);
  CHECK(head->request.header("content-type") == "application/json");
  CHECK(head->request.header("HOST") == "fed-manager.fed-system.svc:9443");
  CHECK_FALSE(head->request.header("x-missing").has_value());
}

TEST_CASE("find_head_end needs the blank line") {
  CHECK(find_head_end("GET / HTTP/1.1\r\nHost: x\r\n") == std::string::npos);
  CHECK(find_head_end("GET / HTTP/1.1\r\n\r\n") == 18);
}

TEST_CASE("malformed heads are Invalid with a reason") {
  const auto reason = [](const std::string& raw) {
    auto head = parse_request_head(raw);
    REQUIRE_FALSE(head.has_value());
    CHECK(head.error().code() == fed::ErrorCode::Invalid);
    return head.error().message();
  };
  CHECK(reason("GET /\r\n\r\n") ==
        "malformed request: request line must be 'METHOD /path HTTP/1.1'");
  CHECK(reason("GET  / HTTP/1.1\r\n\r\n").find("request line") != std::string::npos);
  CHECK(reason("GET http://x/ HTTP/1.1\r\n\r\n").find("starting with '/'") != std::string::npos);
  CHECK(reason("GET / HTTP/2.0\r\n\r\n").find("unsupported version 'HTTP/2.0'") !=
        std::string::npos);
  CHECK(reason("G@T / HTTP/1.1\r\n\r\n").find("bad method") != std::string::npos);
  CHECK(reason("GET / HTTP/1.1\r\nNoColon\r\n\r\n").find("bad header line") != std::string::npos);
  CHECK(reason("GET / HTTP/1.1\r\nA: b\r\n  folded\r\n\r\n").find("folded") != std::string::npos);
  CHECK(reason("GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n").find("bad Content-Length") !=
        std::string::npos);
  CHECK(reason("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
            .find("conflicting") != std::string::npos);
  CHECK(reason("GET / HTTP/1.1\r\nA: b\r\n").find("blank line") != std::string::npos);
}

TEST_CASE("Transfer-Encoding is reported so the server can refuse it") {
  auto head = parse_request_head("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  REQUIRE(head.has_value());
  CHECK(head->chunked);
}
