#include "agent/etcdproxy/tls_record_tracker.hpp"

namespace fed::etcdproxy {

void TlsRecordTracker::feed(std::string_view bytes) {
  std::size_t i = 0;
  while (tls_ && i < bytes.size()) {
    if (body_left_ > 0) {
      const std::size_t take = std::min(body_left_, bytes.size() - i);
      body_left_ -= take;
      i += take;
      continue;
    }
    header_[header_have_++] = static_cast<std::uint8_t>(bytes[i++]);
    if (first_ && header_[0] != 0x16) {  // a TLS stream opens with a handshake record
      tls_ = false;
      return;
    }
    first_ = false;
    if (header_have_ < 5) continue;
    // Content types 20..24 (change_cipher_spec .. heartbeat), major version 3.
    if (header_[0] < 20 || header_[0] > 24 || header_[1] != 3) {
      tls_ = false;
      return;
    }
    body_left_ = static_cast<std::size_t>(header_[3]) << 8 | header_[4];
    header_have_ = 0;
  }
}

}  // namespace fed::etcdproxy
