#pragma once
// Follows TLS record framing in one direction of a passed-through TLS stream (5-byte header:
// type, version, 16-bit length) without decrypting anything, so the proxy knows whether a
// member's reply ended on a record boundary. Closing a drained connection there never cuts a
// record in half; a cut inside a record would surface as a TLS error instead of a clean EOF.
// Streams that do not start with a TLS handshake record are reported as not TLS.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fed::etcdproxy {

class TlsRecordTracker final {
 public:
  // Consumes the next bytes of the stream.
  void feed(std::string_view bytes);
  // True when every byte seen so far belongs to complete records.
  bool at_boundary() const { return tls_ && header_have_ == 0 && body_left_ == 0; }
  // False once the stream turned out not to be TLS (then at_boundary() is always false).
  bool tls() const { return tls_; }

 private:
  bool tls_ = true;
  bool first_ = true;
  std::uint8_t header_[5] = {};
  std::size_t header_have_ = 0;
  std::size_t body_left_ = 0;
};

}  // namespace fed::etcdproxy
