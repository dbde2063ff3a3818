#include "shared/result/result.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <string>

namespace {

fed::Result<int> parse_positive(int v) {
  if (v <= 0) return fed::fail(fed::ErrorCode::Invalid, "value must be positive");
  return v;
}

fed::Result<int> doubled(int v) {
  FED_ASSIGN_OR_RETURN(int x, parse_positive(v));
  return 2 * x;
}

fed::Status check(int v) {
  FED_TRY(parse_positive(v));
  return fed::ok();
}

}  // namespace

TEST_CASE("Result carries a value or an error with its code") {
  auto good = doubled(4);
  REQUIRE(good.has_value());
  CHECK(*good == 8);

  auto bad = doubled(-1);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code() == fed::ErrorCode::Invalid);
  CHECK(bad.error().message() == "value must be positive");
  CHECK(bad.value_or(7) == 7);
}

TEST_CASE("Status propagates through FED_TRY and context is prefixed") {
  CHECK(check(1).has_value());
  auto s = check(0);
  REQUIRE_FALSE(s);
  auto e = s.error().with_context("spec.replicas");
  CHECK(e.message() == "spec.replicas: value must be positive");
  CHECK_FALSE(e.retryable());
  CHECK(fed::Error(fed::ErrorCode::Unavailable, "x").retryable());
}

TEST_CASE("Result holds move-only values") {
  fed::Result<std::unique_ptr<int>> r(std::make_unique<int>(3));
  REQUIRE(r);
  std::unique_ptr<int> p = std::move(r).value();
  CHECK(*p == 3);
}
