#pragma once
// fed::Result<T>: the error-as-value type used across every module boundary.
// Its API follows std::expected so it can be swapped for it at C++23.

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace fed {

// What the caller (and a work queue) should do about a failure.
enum class ErrorCode {
  Invalid,      // bad input; terminal, retrying cannot help
  NotFound,     // the thing does not exist
  Conflict,     // lost a race (resourceVersion, already exists); retry after a re-read
  Permission,   // authentication or authorization refused
  Unavailable,  // transient: network, 5xx, 429, timeouts; retry with backoff
  Internal,     // a bug or an environment fault we cannot classify
};

std::string_view to_string(ErrorCode code);

// An error: a code the caller acts on and a message that names the failing thing and the fix.
class Error final {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is prefixed with `context: `, as each layer adds what it was doing.
  Error with_context(std::string_view context) const& {
    return Error(code_, std::string(context) + ": " + message_);
  }
  Error with_context(std::string_view context) && {
    message_ = std::string(context) + ": " + message_;
    return std::move(*this);
  }

  // True for codes a retry may cure.
  bool retryable() const { return code_ == ErrorCode::Unavailable || code_ == ErrorCode::Conflict; }

 private:
  ErrorCode code_;
  std::string message_;
};

// Wraps an Error so that `return fed::Unexpected(err);` converts to any Result<T>.
struct Unexpected {
  explicit Unexpected(Error e) : error(std::move(e)) {}
  Error error;
};

inline Unexpected fail(ErrorCode code, std::string message) {
  return Unexpected(Error(code, std::move(message)));
}

template <typename T>
class [[nodiscard]] Result final {
 public:
  using value_type = T;
  Result(const T& v) : v_(std::in_place_index<0>, v) {}           // NOLINT: implicit by design
  Result(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}     // NOLINT
  Result(Unexpected u) : v_(std::in_place_index<1>, std::move(u.error)) {}  // NOLINT
  Result(Error e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT
  template <typename... Args>
  explicit Result(std::in_place_t, Args&&... args)
      : v_(std::in_place_index<0>, std::forward<Args>(args)...) {}

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { assert(has_value()); return std::get<0>(v_); }
  const T& value() const& { assert(has_value()); return std::get<0>(v_); }
  T&& value() && { assert(has_value()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { assert(!has_value()); return std::get<1>(v_); }
  Error&& error() && { assert(!has_value()); return std::get<1>(std::move(v_)); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> final {
 public:
  Result() = default;
  Result(Unexpected u) : err_(std::move(u.error)), ok_(false) {}  // NOLINT
  Result(Error e) : err_(std::move(e)), ok_(false) {}              // NOLINT

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  void value() const { assert(ok_); }
  const Error& error() const& { assert(!ok_); return err_; }
  Error&& error() && { assert(!ok_); return std::move(err_); }

 private:
  Error err_{ErrorCode::Internal, ""};
  bool ok_ = true;
};

using Status = Result<void>;

inline Status ok() { return {}; }

}  // namespace fed

// Propagates the error of a Result-returning expression, else yields nothing.
#define FED_TRY(expr)                                                  \
  do {                                                                 \
    auto&& fed_try_result_ = (expr);                                   \
    if (!fed_try_result_) return ::fed::Unexpected(std::move(fed_try_result_).error()); \
  } while (0)

// Assigns the value of a Result-returning expression to `lhs`, or propagates its error.
#define FED_ASSIGN_OR_RETURN(lhs, expr) FED_ASSIGN_OR_RETURN_IMPL_(FED_CONCAT_(fed_r_, __LINE__), lhs, expr)
#define FED_CONCAT_INNER_(a, b) a##b
#define FED_CONCAT_(a, b) FED_CONCAT_INNER_(a, b)
#define FED_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr)                       \
  auto tmp = (expr);                                                     \
  if (!tmp) return ::fed::Unexpected(std::move(tmp).error());           \
  lhs = std::move(tmp).value()
