#include "shared/util/quantity.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using fed::util::parse_quantity;

namespace {

std::int64_t value(const std::string& s) {
  auto q = parse_quantity(s);
  INFO(s);
  REQUIRE(q.has_value());
  auto v = q->value();
  REQUIRE(v.has_value());
  return *v;
}

std::int64_t milli(const std::string& s) {
  auto q = parse_quantity(s);
  INFO(s);
  REQUIRE(q.has_value());
  auto v = q->milli_value();
  REQUIRE(v.has_value());
  return *v;
}

std::string quantity_error(const std::string& s) {
  auto q = parse_quantity(s);
  INFO(s);
  REQUIRE_FALSE(q.has_value());
  CHECK(q.error().code() == fed::ErrorCode::Invalid);
  return q.error().message();
}

}  // namespace

TEST_CASE("binary and decimal SI suffixes") {
  CHECK(value("4Gi") == 4LL << 30);
  CHECK(value("1Ki") == 1024);
  CHECK(value("1Mi") == 1 << 20);
  CHECK(value("2Ti") == 2LL << 40);
  CHECK(value("1Pi") == 1LL << 50);
  CHECK(value("7Ei") == 7LL << 60);
  CHECK(value("1.5Gi") == 3LL << 29);
  CHECK(value("0.5Ki") == 512);
  CHECK(value("1k") == 1000);
  CHECK(value("1M") == 1'000'000);
  CHECK(value("3G") == 3'000'000'000);
  CHECK(value("1T") == 1'000'000'000'000);
  CHECK(value("1P") == 1'000'000'000'000'000);
  CHECK(value("1E") == 1'000'000'000'000'000'000);
  CHECK(value("128974848") == 128974848);
  CHECK(value("129e6") == 129'000'000);
  CHECK(value("129E6") == 129'000'000);
  CHECK(value("1e-3") == 1);  // rounds up
  CHECK(value("+12") == 12);
  CHECK(value("-12") == -12);
  CHECK(value("0") == 0);
  CHECK(value("0Gi") == 0);
  CHECK(value("000123.4500") == 124);
  CHECK_FALSE(parse_quantity("12345678901234567890")->value().has_value());  // 1.2e19 > int64
}

TEST_CASE("milli values and rounding up like resource.Quantity") {
  CHECK(milli("500m") == 500);
  CHECK(milli("2") == 2000);
  CHECK(milli("0.1") == 100);
  CHECK(milli("1u") == 1);  // 0.001 milli rounds up
  CHECK(milli("1n") == 1);
  CHECK(value("100m") == 1);
  CHECK(value("1500m") == 2);
  CHECK(value("1.5") == 2);
  CHECK(value("-1.5") == -2);
  CHECK(milli("1Ki") == 1'024'000);
  CHECK(milli("1e-30") == 1);
  CHECK(milli("0.0001Ki") == 103);  // 102.4 rounds up
}

TEST_CASE("as_double and text") {
  auto q = parse_quantity("1.5Gi");
  REQUIRE(q);
  CHECK(q->as_double() == doctest::Approx(1.5 * 1024 * 1024 * 1024));
  CHECK(q->text() == "1.5Gi");
  auto m = parse_quantity("250m");
  REQUIRE(m);
  CHECK(m->as_double() == doctest::Approx(0.25));
}

TEST_CASE("invalid quantities name the input and the accepted suffixes") {
  CHECK(quantity_error("").find("invalid quantity \"\": expected a number") == 0);
  CHECK(quantity_error("Gi").find("expected a number") != std::string::npos);
  CHECK(quantity_error("4GB").find("unknown suffix \"GB\"") != std::string::npos);
  CHECK(quantity_error("4gi").find("unknown suffix \"gi\"") != std::string::npos);
  CHECK(quantity_error("4 Gi").find("unknown suffix \" Gi\"") != std::string::npos);
  CHECK(quantity_error("1.2.3").find("unknown suffix \".3\"") != std::string::npos);
  CHECK(quantity_error("1e").find("unknown suffix \"e\"") != std::string::npos);
  CHECK(quantity_error("12345678901234567891").find("19 significant digits") != std::string::npos);
}

TEST_CASE("values beyond int64 are errors, not wrap-arounds") {
  auto q = parse_quantity("8Ei");
  REQUIRE(q);
  CHECK_FALSE(q->value().has_value());
  CHECK(q->value().error().message() == "quantity \"8Ei\" is too large");
  auto big = parse_quantity("1e30");
  REQUIRE(big);
  CHECK_FALSE(big->value().has_value());
  auto e = parse_quantity("1E");
  REQUIRE(e);
  CHECK_FALSE(e->milli_value().has_value());
}
