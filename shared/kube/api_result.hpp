#pragma once
// ApiResult<T>: the result of a Kubernetes API call. Like fed::Result<T> (the std::expected
// API), but the error is a typed ApiError (HTTP code, reason, causes). It converts to
// fed::Result<T>, and FED_TRY / FED_ASSIGN_OR_RETURN propagate it into any Result-returning
// function, so callers that only need the ErrorCode never see the difference.

#include <cassert>
#include <optional>
#include <utility>
#include <variant>

#include "shared/kube/api_error.hpp"
#include "shared/result/result.hpp"

namespace fed::kube {

template <typename T>
class [[nodiscard]] ApiResult final {
 public:
  using value_type = T;
  ApiResult(const T& v) : v_(std::in_place_index<0>, v) {}             // NOLINT: implicit by design
  ApiResult(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}       // NOLINT
  ApiResult(ApiError e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT
  ApiResult(Unexpected u) : v_(std::in_place_index<1>, ApiError::from_error(u.error)) {}  // NOLINT

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    assert(has_value());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(has_value());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(has_value());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const ApiError& error() const& {
    assert(!has_value());
    return std::get<1>(v_);
  }
  ApiError&& error() && {
    assert(!has_value());
    return std::get<1>(std::move(v_));
  }

  template <typename U>
  T value_or(U&& fallback) const& {
    return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

  // Drops the typed detail: the ErrorCode and the one-line message remain.
  operator Result<T>() const& {  // NOLINT: implicit by design
    if (has_value()) return Result<T>(value());
    return Result<T>(error().to_error());
  }
  operator Result<T>() && {  // NOLINT
    if (has_value()) return Result<T>(std::move(*this).value());
    return Result<T>(error().to_error());
  }

 private:
  std::variant<T, ApiError> v_;
};

template <>
class [[nodiscard]] ApiResult<void> final {
 public:
  ApiResult() = default;
  ApiResult(ApiError e) : err_(std::move(e)) {}                     // NOLINT
  ApiResult(Unexpected u) : err_(ApiError::from_error(u.error)) {}  // NOLINT

  bool has_value() const { return !err_.has_value(); }
  explicit operator bool() const { return has_value(); }
  void value() const { assert(has_value()); }
  const ApiError& error() const& {
    assert(!has_value());
    return *err_;
  }
  ApiError&& error() && {
    assert(!has_value());
    return std::move(*err_);
  }
  operator Status() const {  // NOLINT
    if (has_value()) return Status();
    return Status(err_->to_error());
  }

 private:
  std::optional<ApiError> err_;
};

}  // namespace fed::kube

// Inside an ApiResult-returning function: assigns the value of `expr` (an ApiResult) to `lhs`,
// or returns its ApiError unchanged (FED_ASSIGN_OR_RETURN would flatten it to a fed::Error).
#define FED_API_ASSIGN_OR_RETURN(lhs, expr) \
  FED_API_ASSIGN_OR_RETURN_IMPL_(FED_CONCAT_(fed_api_r_, __LINE__), lhs, expr)
#define FED_API_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp) return std::move(tmp).error();             \
  lhs = std::move(tmp).value()

// Inside an ApiResult-returning function: returns the ApiError of `expr` if it failed.
#define FED_API_TRY(expr)                                      \
  do {                                                         \
    auto&& fed_api_try_ = (expr);                              \
    if (!fed_api_try_) return std::move(fed_api_try_).error(); \
  } while (0)
