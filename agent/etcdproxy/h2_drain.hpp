#pragma once
// HTTP/2 at frame level, for moving a gRPC client off a deposed etcd leader without failing a
// request (the TLS-terminating mode, terminated_connection.hpp). Pure: bytes in, decisions out.
//
// H2FrameSplitter cuts one direction of a connection into whole units (the client preface, then
// frames: 9-byte header + payload) so that the proxy forwards, drops or inserts at frame
// boundaries. H2DrainState follows the streams of one connection: a client HEADERS opens a stream,
// the member's END_STREAM or a RST_STREAM from either side closes it. begin_drain() gives the
// GOAWAY the proxy sends the client "as the server", naming the highest stream the member has
// seen: grpc-go then opens a new connection (through the proxy, to the new leader) for every
// new RPC, lets the streams in flight finish here, and retries transparently any stream above
// that id, whose frames the proxy drops instead of forwarding. Only headers-free frames are
// dropped or added, so the HPACK state both ends share stays intact (a client opens no stream
// after a GOAWAY, so the dropped HEADERS are its last header blocks on this connection).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace fed::etcdproxy {

// One unit of a direction: the client preface, or one frame.
struct H2Unit {
  std::string bytes;  // exactly as received
  bool preface = false;
  std::uint8_t type = 0;
  std::uint8_t flags = 0;
  std::uint32_t stream = 0;
};

inline constexpr std::uint8_t kH2Data = 0x0, kH2Headers = 0x1, kH2RstStream = 0x3,
                              kH2PushPromise = 0x5, kH2GoAway = 0x7, kH2Continuation = 0x9;
inline constexpr std::uint8_t kH2EndStream = 0x1;
inline constexpr std::string_view kH2ClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

class H2FrameSplitter final {
 public:
  // `client_side`: the direction starts with the client preface.
  explicit H2FrameSplitter(bool client_side) : expect_preface_(client_side) {}
  void feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole unit, or nullopt until more bytes arrive (or after a bad preface: failed()).
  std::optional<H2Unit> next();
  bool failed() const { return failed_; }

 private:
  std::string buffer_;
  std::size_t offset_ = 0;
  bool expect_preface_;
  bool failed_ = false;
};

class H2DrainState final {
 public:
  using Clock = std::chrono::steady_clock;

  // A client unit: whether to forward it to the member (false: a stream the GOAWAY refused).
  bool from_client(const H2Unit& unit, Clock::time_point now);
  // A member unit (always forwarded).
  void from_member(const H2Unit& unit);

  // The GOAWAY frame for the client (NO_ERROR, last stream = the highest the member saw); from
  // now on frames of newer client streams are dropped. Call once.
  std::string begin_drain();
  bool draining() const { return last_forwarded_.has_value(); }

  std::size_t open_streams() const { return open_.size(); }
  // True when no stream is open that was opened less than `min_age` ago: what is left are the
  // long-lived streams (watches), which the client re-establishes by itself on the new
  // connection, while a unary call is never cut.
  bool only_long_lived(Clock::time_point now, Clock::duration min_age) const;

 private:
  std::map<std::uint32_t, Clock::time_point> open_;  // client streams the member has not ended
  std::uint32_t highest_ = 0;                        // highest client stream forwarded
  std::optional<std::uint32_t> last_forwarded_;      // set by begin_drain()
};

// A GOAWAY frame: last stream id, error code (0 = NO_ERROR), no debug data.
std::string h2_goaway(std::uint32_t last_stream, std::uint32_t error_code = 0);

}  // namespace fed::etcdproxy
