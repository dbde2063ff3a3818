#include "agent/etcdproxy/tls_record_tracker.hpp"

#include <doctest/doctest.h>

#include <string>

using fed::etcdproxy::TlsRecordTracker;

namespace {

std::string record(unsigned char type, std::size_t len) {
  std::string r = {static_cast<char>(type), 3, 3, static_cast<char>(len >> 8),
                   static_cast<char>(len & 0xff)};
  return r + std::string(len, 'x');
}

}  // namespace

TEST_CASE("record boundaries are found across arbitrary chunking") {
  const std::string stream = record(0x16, 100) + record(0x17, 300) + record(0x17, 5);
  for (std::size_t step : {1u, 3u, 7u, 64u, 1000u}) {
    TlsRecordTracker t;
    std::size_t boundaries = 0;
    for (std::size_t i = 0; i < stream.size(); i += step) {
      t.feed(std::string_view(stream).substr(i, step));
      if (t.at_boundary()) ++boundaries;
    }
    CHECK(t.tls());
    CHECK(t.at_boundary());
    if (step == 1) CHECK(boundaries == 3);
  }
}

TEST_CASE("inside a record or a header is not a boundary") {
  TlsRecordTracker t;
  const std::string r = record(0x16, 10);
  t.feed(r.substr(0, 3));
  CHECK_FALSE(t.at_boundary());
  t.feed(r.substr(3, 4));
  CHECK_FALSE(t.at_boundary());
  t.feed(r.substr(7));
  CHECK(t.at_boundary());
}

TEST_CASE("a stream that is not TLS is recognised and never reports a boundary") {
  TlsRecordTracker t;
  t.feed("HTTP/1.1 200 OK\r\n");
  CHECK_FALSE(t.tls());
  CHECK_FALSE(t.at_boundary());
  TlsRecordTracker bad;
  bad.feed(std::string("\x16\x09\x03\x00\x01", 5));  // bad version byte
  CHECK_FALSE(bad.tls());
}
