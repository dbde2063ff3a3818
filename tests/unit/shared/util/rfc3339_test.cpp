#include "shared/util/rfc3339.hpp"

#include <doctest/doctest.h>

#include <chrono>

using fed::util::format_rfc3339;
using fed::util::format_rfc3339_millis;
using fed::util::parse_rfc3339;
using namespace std::chrono;

TEST_CASE("parse_rfc3339 handles UTC, offsets and fractions") {
  auto utc = parse_rfc3339("2024-05-01T12:00:00Z");
  REQUIRE(utc.has_value());
  CHECK(duration_cast<seconds>(utc->time_since_epoch()).count() == 1714564800);
  CHECK(format_rfc3339(*utc) == "2024-05-01T12:00:00Z");

  auto offset = parse_rfc3339("2024-05-01T14:30:00+02:30");
  REQUIRE(offset.has_value());
  CHECK(format_rfc3339(*offset) == "2024-05-01T12:00:00Z");
  CHECK(format_rfc3339(*parse_rfc3339("2024-04-30T23:00:00-13:00")) == "2024-05-01T12:00:00Z");

  auto frac = parse_rfc3339("1970-01-01T00:00:01.123456789Z");
  REQUIRE(frac.has_value());
  CHECK(duration_cast<nanoseconds>(frac->time_since_epoch()).count() == 1123456789);
  CHECK(duration_cast<milliseconds>(parse_rfc3339("1970-01-01t00:00:00.5z")->time_since_epoch())
            .count() == 500);
  CHECK(format_rfc3339(*parse_rfc3339("2000-02-29T23:59:59Z")) == "2000-02-29T23:59:59Z");
}

TEST_CASE("format_rfc3339_millis and _micros keep their fraction, truncated, and parse back") {
  const auto t = *parse_rfc3339("2024-05-01T14:30:00.0429+02:30");
  CHECK(format_rfc3339_millis(t) == "2024-05-01T12:00:00.042Z");
  CHECK(format_rfc3339(t) == "2024-05-01T12:00:00Z");
  CHECK(format_rfc3339_millis(*parse_rfc3339("2000-02-29T23:59:59Z")) ==
        "2000-02-29T23:59:59.000Z");
  CHECK(*parse_rfc3339(format_rfc3339_millis(t)) == floor<milliseconds>(t));
  const auto fine = *parse_rfc3339("2024-05-01T12:00:00.0421179Z");
  CHECK(fed::util::format_rfc3339_micros(fine) == "2024-05-01T12:00:00.042117Z");
  CHECK(*parse_rfc3339(fed::util::format_rfc3339_micros(fine)) ==
        floor<std::chrono::microseconds>(fine));
}

TEST_CASE("parse_rfc3339 rejects malformed timestamps with the reason") {
  const auto err = [](std::string_view s) {
    auto r = parse_rfc3339(s);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == fed::ErrorCode::Invalid);
    return r.error().message();
  };
  CHECK(err("2024-05-01 12:00:00Z") ==
        "invalid RFC 3339 timestamp \"2024-05-01 12:00:00Z\": bad day or missing 'T' (expected "
        "e.g. 2024-05-01T12:00:00Z)");
  CHECK(err("2024-05-01T12:00:00").find("missing zone") != std::string::npos);
  CHECK(err("2023-02-29T00:00:00Z").find("no such date") != std::string::npos);
  CHECK(err("2024-05-01T24:00:00Z").find("time out of range") != std::string::npos);
  CHECK(err("2024-05-01T12:00:00.Z").find("empty fraction") != std::string::npos);
  CHECK(err("2024-05-01T12:00:00+0200").find("bad zone offset") != std::string::npos);
  CHECK(err("2024-05-01T12:00:00Zjunk").find("trailing characters") != std::string::npos);
  CHECK(err("").find("bad year") != std::string::npos);
}

// Found by the scalars fuzz target: years outside system_clock's span overflowed its
// nanoseconds (signed overflow, UB) instead of parsing.
TEST_CASE("parse_rfc3339 saturates instants system_clock cannot hold") {
  using std::chrono::system_clock;
  auto never = parse_rfc3339("9999-12-31T23:59:59Z");
  REQUIRE(never);
  CHECK(*never == system_clock::time_point::max());
  auto ancient = parse_rfc3339("0001-01-01T00:00:00.5-23:59");
  REQUIRE(ancient);
  CHECK(*ancient == system_clock::time_point::min());
  // The edges of the span still parse exactly.
  auto late = parse_rfc3339("2262-04-11T00:00:00Z");
  REQUIRE(late);
  CHECK(*late < system_clock::time_point::max());
  CHECK(format_rfc3339(*late) == "2262-04-11T00:00:00Z");
}
