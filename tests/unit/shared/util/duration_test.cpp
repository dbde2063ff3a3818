#include "shared/util/duration.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

using namespace std::chrono_literals;
using fed::util::format_duration;
using fed::util::parse_duration;

namespace {

std::chrono::nanoseconds ok(const std::string& s) {
  auto r = parse_duration(s);
  INFO(s);
  REQUIRE(r.has_value());
  return *r;
}

std::string err(const std::string& s) {
  auto r = parse_duration(s);
  INFO(s);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code() == fed::ErrorCode::Invalid);
  return r.error().message();
}

}  // namespace

TEST_CASE("parse_duration reads what Go's time.ParseDuration reads") {
  CHECK(ok("0") == 0ns);
  CHECK(ok("-0") == 0ns);
  CHECK(ok("30s") == 30s);
  CHECK(ok("2m") == 2min);
  CHECK(ok("1h30m") == 90min);
  CHECK(ok("500ms") == 500ms);
  CHECK(ok("1.5h") == 90min);
  CHECK(ok("-2m") == -2min);
  CHECK(ok("+5s") == 5s);
  CHECK(ok("1h2m3s4ms5us6ns") == 1h + 2min + 3s + 4ms + 5us + 6ns);
  CHECK(ok("3\xC2\xB5s") == 3us);
  CHECK(ok("3\xCE\xBCs") == 3us);
  CHECK(ok(".5s") == 500ms);
  CHECK(ok("1.s") == 1s);
  CHECK(ok("0.000000001s") == 1ns);
  CHECK(ok("100ns") == 100ns);
  CHECK(ok("9223372036854775807ns") == std::chrono::nanoseconds::max());
  CHECK(ok("-9223372036854775808ns").count() == std::numeric_limits<std::int64_t>::min());
  CHECK(ok("2562047h47m16.854775807s") == std::chrono::nanoseconds::max());
}

TEST_CASE("parse_duration rejects malformed input with a message naming it") {
  CHECK(err("") ==
        "invalid duration \"\": empty (write a number and a unit such as \"30s\", "
        "\"2m\", \"1h30m\" or \"500ms\"; units: ns, us, ms, s, m, h)");
  CHECK(err("30").find("missing unit") != std::string::npos);
  CHECK(err("1x").find("unknown unit \"x\"") != std::string::npos);
  CHECK(err("1d").find("unknown unit \"d\"") != std::string::npos);
  CHECK(err("s").find("expected a number") != std::string::npos);
  CHECK(err(".s").find("expected a number") != std::string::npos);
  CHECK(err("-").find("empty") != std::string::npos);
  CHECK(err("1h 30m").find("unknown unit \"h \"") != std::string::npos);
  CHECK(err("9223372036854775808ns").find("out of range") != std::string::npos);
  CHECK(err("3000000h").find("out of range") != std::string::npos);
  CHECK(err("99999999999999999999s").find("out of range") != std::string::npos);
}

TEST_CASE("format_duration writes Go's Duration.String()") {
  CHECK(format_duration(0ns) == "0s");
  CHECK(format_duration(1ns) == "1ns");
  CHECK(format_duration(1500ns) == "1.5\xC2\xB5s");
  CHECK(format_duration(500ms) == "500ms");
  CHECK(format_duration(1500us) == "1.5ms");
  CHECK(format_duration(30s) == "30s");
  CHECK(format_duration(2min) == "2m0s");
  CHECK(format_duration(90min) == "1h30m0s");
  CHECK(format_duration(1h) == "1h0m0s");
  CHECK(format_duration(1s + 500ms) == "1.5s");
  CHECK(format_duration(-2min) == "-2m0s");
  CHECK(format_duration(std::chrono::nanoseconds::max()) == "2562047h47m16.854775807s");
  CHECK(format_duration(std::chrono::nanoseconds::min()) == "-2562047h47m16.854775808s");
  // Round trip.
  CHECK(ok(format_duration(90min + 1500ms)) == 90min + 1500ms);
}
