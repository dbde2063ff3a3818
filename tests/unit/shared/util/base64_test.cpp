#include "shared/util/base64.hpp"

#include <doctest/doctest.h>

#include <string>

using fed::util::base64_decode;
using fed::util::base64_encode;

TEST_CASE("base64 round-trips the RFC 4648 test vectors") {
  const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    CHECK(base64_encode(plain) == encoded);
    auto back = base64_decode(encoded);
    REQUIRE(back.has_value());
    CHECK(*back == plain);
  }
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  CHECK(*base64_decode(base64_encode(all)) == all);
}

TEST_CASE("base64_decode skips line breaks and names the bad byte") {
  CHECK(*base64_decode("Zm9v\nYmFy\r\n") == "foobar");
  const auto err = [](std::string_view s) {
    auto r = base64_decode(s);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == fed::ErrorCode::Invalid);
    return r.error().message();
  };
  CHECK(err("Zm9v!") == "invalid base64 at byte 4 (character not in the base64 alphabet)");
  CHECK(err("Zm9") == "invalid base64 at byte 3 (truncated input or missing padding)");
  CHECK(err("Z===") == "invalid base64 at byte 1 (misplaced padding)");
  CHECK(err("Zg==Zg==") == "invalid base64 at byte 4 (data after padding)");
  CHECK(err("Zm8==") == "invalid base64 at byte 4 (too much padding)");
  CHECK(err("Zm9v Zm9v") == "invalid base64 at byte 4 (character not in the base64 alphabet)");
}
