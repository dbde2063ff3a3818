#include "agent/etcdproxy/h2_drain.hpp"

namespace fed::etcdproxy {
namespace {

constexpr std::size_t kFrameHeader = 9;

std::uint32_t be24(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2];
}

std::uint32_t be31(const unsigned char* p) {
  return ((std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
          p[3]) &
         0x7fffffffu;
}

void put_be32(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>((v >> 24) & 0xff));
  out.push_back(static_cast<char>((v >> 16) & 0xff));
  out.push_back(static_cast<char>((v >> 8) & 0xff));
  out.push_back(static_cast<char>(v & 0xff));
}

}  // namespace

std::optional<H2Unit> H2FrameSplitter::next() {
  if (failed_) return std::nullopt;
  const std::size_t have = buffer_.size() - offset_;
  if (expect_preface_) {
    if (have < kH2ClientPreface.size()) return std::nullopt;
    if (std::string_view(buffer_).substr(offset_, kH2ClientPreface.size()) != kH2ClientPreface) {
      failed_ = true;
      return std::nullopt;
    }
    expect_preface_ = false;
    H2Unit u;
    u.preface = true;
    u.bytes = buffer_.substr(offset_, kH2ClientPreface.size());
    offset_ += kH2ClientPreface.size();
    return u;
  }
  if (have < kFrameHeader) return std::nullopt;
  const auto* h = reinterpret_cast<const unsigned char*>(buffer_.data() + offset_);
  const std::size_t length = be24(h);
  if (have < kFrameHeader + length) return std::nullopt;
  H2Unit u;
  u.type = h[3];
  u.flags = h[4];
  u.stream = be31(h + 5);
  u.bytes = buffer_.substr(offset_, kFrameHeader + length);
  offset_ += kFrameHeader + length;
  if (offset_ > 64 * 1024 && offset_ * 2 > buffer_.size()) {  // keep the buffer from growing
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  return u;
}

bool H2DrainState::from_client(const H2Unit& unit, Clock::time_point now) {
  if (unit.preface || unit.stream == 0) return true;  // connection-level: SETTINGS, PING, ...
  if (last_forwarded_ && unit.stream > *last_forwarded_) return false;  // refused by the GOAWAY
  if (unit.type == kH2Headers && unit.stream > highest_) {
    highest_ = unit.stream;
    open_.emplace(unit.stream, now);
  } else if (unit.type == kH2RstStream) {
    open_.erase(unit.stream);
  }
  return true;
}

void H2DrainState::from_member(const H2Unit& unit) {
  if (unit.stream == 0) return;
  const bool ends =
      unit.type == kH2RstStream ||
      ((unit.type == kH2Data || unit.type == kH2Headers) && (unit.flags & kH2EndStream) != 0);
  if (ends) open_.erase(unit.stream);
}

std::string H2DrainState::begin_drain() {
  last_forwarded_ = highest_;
  return h2_goaway(highest_);
}

bool H2DrainState::only_long_lived(Clock::time_point now, Clock::duration min_age) const {
  for (const auto& [stream, opened] : open_) {
    if (now - opened < min_age) return false;
  }
  return true;
}

std::string h2_goaway(std::uint32_t last_stream, std::uint32_t error_code) {
  std::string f;
  f.push_back(0);  // length 8, 24 bits
  f.push_back(0);
  f.push_back(8);
  f.push_back(static_cast<char>(kH2GoAway));
  f.push_back(0);  // flags
  put_be32(f, 0);  // stream 0: the connection
  put_be32(f, last_stream & 0x7fffffffu);
  put_be32(f, error_code);
  return f;
}

}  // namespace fed::etcdproxy
