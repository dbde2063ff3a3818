#include "agent/etcdproxy/h2_drain.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace fed::etcdproxy;
using namespace std::chrono_literals;

namespace {

std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream,
                  std::size_t length = 3) {
  std::string f = {static_cast<char>(length >> 16), static_cast<char>(length >> 8),
                   static_cast<char>(length),       static_cast<char>(type),
                   static_cast<char>(flags),        static_cast<char>(stream >> 24),
                   static_cast<char>(stream >> 16), static_cast<char>(stream >> 8),
                   static_cast<char>(stream)};
  return f + std::string(length, 'p');
}

H2Unit unit(std::uint8_t type, std::uint8_t flags, std::uint32_t stream) {
  H2Unit u;
  u.type = type;
  u.flags = flags;
  u.stream = stream;
  u.bytes = frame(type, flags, stream);
  return u;
}

std::vector<H2Unit> drain_all(H2FrameSplitter& s) {
  std::vector<H2Unit> out;
  while (auto u = s.next()) out.push_back(*u);
  return out;
}

}  // namespace

TEST_CASE("the splitter yields the preface, then whole frames, whatever the chunking") {
  const std::string stream = std::string(kH2ClientPreface) + frame(0x4, 0, 0, 6) +
                             frame(kH2Headers, 0x4, 1, 40) + frame(kH2Data, kH2EndStream, 1, 17000);
  for (const std::size_t chunk :
       {std::size_t{1}, std::size_t{7}, std::size_t{4096}, stream.size()}) {
    H2FrameSplitter s(true);
    std::vector<H2Unit> units;
    for (std::size_t i = 0; i < stream.size(); i += chunk) {
      s.feed(std::string_view(stream).substr(i, chunk));
      for (auto& u : drain_all(s)) units.push_back(u);
    }
    REQUIRE(units.size() == 4);
    CHECK(units[0].preface);
    CHECK(units[1].type == 0x4);
    CHECK(units[2].type == kH2Headers);
    CHECK(units[2].stream == 1);
    CHECK(units[3].type == kH2Data);
    CHECK(units[3].flags == kH2EndStream);
    CHECK(units[3].bytes.size() == 9 + 17000);
    std::string joined;
    for (const auto& u : units) joined += u.bytes;
    CHECK(joined == stream);  // forwarded unit by unit, the bytes are unchanged
  }
}

TEST_CASE("a client that does not start with the HTTP/2 preface is refused") {
  H2FrameSplitter s(true);
  s.feed("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK_FALSE(s.next());
  CHECK(s.failed());
}

TEST_CASE(
    "streams open with the client's HEADERS and end with the member's END_STREAM or a reset") {
  H2DrainState st;
  const auto t0 = H2DrainState::Clock::now();
  CHECK(st.from_client(unit(kH2Headers, 0x4, 1), t0));
  CHECK(st.from_client(unit(kH2Data, kH2EndStream, 1), t0));  // the client's half ends
  CHECK(st.from_client(unit(kH2Headers, 0x4, 3), t0));
  CHECK(st.open_streams() == 2);
  st.from_member(unit(kH2Headers, 0x4, 1));  // response headers
  st.from_member(unit(kH2Data, 0, 1));
  CHECK(st.open_streams() == 2);
  st.from_member(unit(kH2Headers, 0x4 | kH2EndStream, 1));  // trailers
  CHECK(st.open_streams() == 1);
  CHECK(st.from_client(unit(kH2RstStream, 0, 3), t0));  // the client cancels
  CHECK(st.open_streams() == 0);
  CHECK(st.from_client(unit(kH2Headers, 0x4, 5), t0));
  st.from_member(unit(kH2RstStream, 0, 5));
  CHECK(st.open_streams() == 0);
}

TEST_CASE(
    "draining: a GOAWAY naming the last stream, newer streams dropped, calls in flight kept") {
  H2DrainState st;
  const auto t0 = H2DrainState::Clock::now();
  CHECK(st.from_client(unit(kH2Headers, 0x4, 1), t0));       // a watch, long open
  CHECK(st.from_client(unit(kH2Headers, 0x4, 7), t0 + 5s));  // a call in flight
  const std::string goaway = st.begin_drain();
  CHECK(goaway == std::string("\0\0\x08\x07\0\0\0\0\0\0\0\0\x07\0\0\0\0", 17));
  CHECK(st.draining());
  // Frames of streams the member knows still go through; a stream the client raced in does not.
  CHECK(st.from_client(unit(kH2Data, kH2EndStream, 7), t0 + 5s));
  CHECK(st.from_client(unit(0x8, 0, 1), t0 + 5s));  // WINDOW_UPDATE of the watch
  CHECK_FALSE(st.from_client(unit(kH2Headers, 0x4, 9), t0 + 5s));
  CHECK_FALSE(st.from_client(unit(kH2Data, kH2EndStream, 9), t0 + 5s));
  CHECK(st.from_client(unit(0x6, 0, 0), t0 + 5s));  // PING: the connection's
  // The call in flight holds the connection open; once it ends, only the watch is left.
  CHECK_FALSE(st.only_long_lived(t0 + 5s + 10ms, 2s));
  st.from_member(unit(kH2Headers, 0x4 | kH2EndStream, 7));
  CHECK(st.only_long_lived(t0 + 5s + 10ms, 2s));
  CHECK(st.open_streams() == 1);
}

TEST_CASE("h2_goaway encodes the last stream and the error code") {
  const std::string f = h2_goaway(0x01020304, 2);
  REQUIRE(f.size() == 17);
  CHECK(f.substr(0, 9) == std::string("\0\0\x08\x07\0\0\0\0\0", 9));
  CHECK(f.substr(9) == std::string("\x01\x02\x03\x04\0\0\0\x02", 8));
}
