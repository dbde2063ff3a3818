#include "shared/util/base64.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace fed::util {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::uint8_t kInvalid = 0xff;
constexpr std::uint8_t kPad = 0xfe;

constexpr std::array<std::uint8_t, 256> make_decode_table() {
  std::array<std::uint8_t, 256> table{};
  for (auto& v : table) v = kInvalid;
  for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
    table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
  }
  table[static_cast<unsigned char>('=')] = kPad;
  return table;
}

constexpr std::array<std::uint8_t, 256> kDecode = make_decode_table();

Unexpected bad_input(std::size_t offset, std::string_view what) {
  return fail(ErrorCode::Invalid,
              "invalid base64 at byte " + std::to_string(offset) + " (" + std::string(what) + ")");
}

}  // namespace

std::string base64_encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const std::uint32_t n =
        (static_cast<std::uint32_t>(static_cast<unsigned char>(data[i])) << 16) |
        (static_cast<std::uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8) |
        static_cast<unsigned char>(data[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  const std::size_t rest = data.size() - i;
  if (rest == 0) return out;
  std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(data[i])) << 16;
  if (rest == 2) n |= static_cast<std::uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8;
  out += kAlphabet[(n >> 18) & 63];
  out += kAlphabet[(n >> 12) & 63];
  out += rest == 2 ? kAlphabet[(n >> 6) & 63] : '=';
  out += '=';
  return out;
}

Result<std::string> base64_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t quad = 0;  // accumulated 6-bit groups of the current quantum
  int have = 0;            // groups in `quad`
  int pads = 0;            // '=' seen so far; only more '=' (or CR/LF) may follow
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\r' || c == '\n') continue;
    const std::uint8_t v = kDecode[c];
    if (v == kInvalid) return bad_input(i, "character not in the base64 alphabet");
    if (v == kPad) {
      if (have < 2) return bad_input(i, "misplaced padding");
      ++pads;
      if (have + pads > 4) return bad_input(i, "too much padding");
      continue;
    }
    if (pads > 0) return bad_input(i, "data after padding");
    quad = (quad << 6) | v;
    if (++have == 4) {
      out += static_cast<char>((quad >> 16) & 0xff);
      out += static_cast<char>((quad >> 8) & 0xff);
      out += static_cast<char>(quad & 0xff);
      quad = 0;
      have = 0;
    }
  }
  if (have == 0) return out;
  if (have + pads != 4) return bad_input(text.size(), "truncated input or missing padding");
  if (have == 2) {
    out += static_cast<char>((quad >> 4) & 0xff);
  } else {  // have == 3
    out += static_cast<char>((quad >> 10) & 0xff);
    out += static_cast<char>((quad >> 2) & 0xff);
  }
  return out;
}

}  // namespace fed::util
