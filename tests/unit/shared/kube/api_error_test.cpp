#include "shared/kube/api_error.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "shared/kube/api_result.hpp"

namespace fed::kube {
namespace {

std::string status_body(int code, const std::string& reason, const std::string& message) {
  return nlohmann::json{{"kind", "Status"},
                        {"apiVersion", "v1"},
                        {"status", "Failure"},
                        {"code", code},
                        {"reason", reason},
                        {"message", message},
                        {"metadata", nlohmann::json::object()}}
      .dump();
}

Result<int> propagate(const ApiResult<int>& r) {
  FED_ASSIGN_OR_RETURN(int v, r);
  return v + 1;
}

}  // namespace

TEST_CASE("Status bodies map to ApiError and fed::ErrorCode for every reason") {
  struct Case {
    int code;
    const char* reason;
    ErrorCode expected;
  };
  const Case cases[] = {
      {404, "NotFound", ErrorCode::NotFound},
      {409, "AlreadyExists", ErrorCode::Conflict},
      {409, "Conflict", ErrorCode::Conflict},
      {401, "Unauthorized", ErrorCode::Permission},
      {403, "Forbidden", ErrorCode::Permission},
      {422, "Invalid", ErrorCode::Invalid},
      {400, "BadRequest", ErrorCode::Invalid},
      {410, "Gone", ErrorCode::Conflict},
      {410, "Expired", ErrorCode::Conflict},
      {429, "TooManyRequests", ErrorCode::Unavailable},
      {500, "InternalError", ErrorCode::Unavailable},
      {503, "ServiceUnavailable", ErrorCode::Unavailable},
      {504, "Timeout", ErrorCode::Unavailable},
      {500, "ServerTimeout", ErrorCode::Unavailable},
      {405, "MethodNotAllowed", ErrorCode::Invalid},
      {415, "UnsupportedMediaType", ErrorCode::Invalid},
      {501, "NotImplemented", ErrorCode::Invalid},
  };
  for (const auto& c : cases) {
    CAPTURE(c.reason);
    const auto e = ApiError::from_response(c.code, status_body(c.code, c.reason, "msg here"));
    CHECK(e.http_status() == c.code);
    CHECK(e.reason() == c.reason);
    CHECK(e.message() == "msg here");
    CHECK(e.code() == c.expected);
    CHECK(e.to_error().code() == c.expected);
  }
}

TEST_CASE("410 is distinguishable as gone; others are not") {
  CHECK(ApiError::from_response(410, status_body(410, "Expired", "too old resource version: 1 (5)"))
            .is_gone());
  CHECK(ApiError::from_response(410, "").is_gone());
  CHECK_FALSE(ApiError::from_response(409, status_body(409, "Conflict", "x")).is_gone());
  CHECK(ApiError::from_response(404, status_body(404, "NotFound", "x")).is_not_found());
  CHECK(ApiError::from_response(409, status_body(409, "AlreadyExists", "x")).is_already_exists());
}

TEST_CASE("details, causes and retryAfterSeconds are kept") {
  const auto body = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
    "message":"ConfigMap \"x\" is invalid: data: Invalid value","reason":"Invalid",
    "details":{"name":"x","kind":"ConfigMap","group":"","retryAfterSeconds":3,
      "causes":[{"reason":"FieldValueInvalid","message":"Invalid value","field":"data"}]},
    "code":422})";
  const auto e = ApiError::from_response(422, body);
  CHECK(e.code() == ErrorCode::Invalid);
  CHECK(e.details_name() == "x");
  CHECK(e.details_kind() == "ConfigMap");
  REQUIRE(e.causes().size() == 1);
  CHECK(e.causes()[0].reason == "FieldValueInvalid");
  CHECK(e.causes()[0].field == "data");
  REQUIRE(e.retry_after());
  CHECK(e.retry_after()->count() == 3);
}

TEST_CASE("an apply conflict names the conflicting managers once each") {
  const auto body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
    "message":"Apply failed with 3 conflicts: conflict with \"kubectl-client-side-apply\" using v1: .data.a",
    "reason":"Conflict","details":{"causes":[
      {"reason":"FieldManagerConflict","message":"conflict with \"kubectl-client-side-apply\" using v1","field":".data.a"},
      {"reason":"FieldManagerConflict","message":"conflict with \"other-manager\" with subresource \"status\" using v1","field":".data.b"},
      {"reason":"FieldManagerConflict","message":"conflict with \"kubectl-client-side-apply\" using v1","field":".data.c"}]},
    "code":409})";
  const auto e = ApiError::from_response(409, body);
  CHECK(e.is_conflict());
  CHECK(e.is_apply_conflict());
  CHECK(e.conflicting_managers() ==
        std::vector<std::string>{"kubectl-client-side-apply", "other-manager"});
  const auto msg = e.to_error().message();
  CHECK(msg.find("kubectl-client-side-apply, other-manager") != std::string::npos);
  CHECK(msg.find("force") != std::string::npos);
  CHECK_FALSE(ApiError::from_response(409, status_body(409, "Conflict", "rv")).is_apply_conflict());
}

TEST_CASE("a non-Status body is summarised on one line with a reason from the HTTP code") {
  const auto e = ApiError::from_response(502, "<html>\n<body>Bad gateway</body>\n</html>");
  CHECK(e.reason() == "InternalError");
  CHECK(e.code() == ErrorCode::Unavailable);
  CHECK(e.message().find('\n') == std::string::npos);
  CHECK(e.message().find("HTTP 502") != std::string::npos);
  const auto big = ApiError::from_response(500, std::string(1000, 'x'));
  CHECK(big.message().size() < 260);
}

TEST_CASE("context and the fed::Error message") {
  ApiError e =
      ApiError::from_response(404, status_body(404, "NotFound", "configmaps \"x\" not found"));
  e.add_context("GET /api/v1/namespaces/default/configmaps/x");
  CHECK(e.to_error().message() ==
        "GET /api/v1/namespaces/default/configmaps/x: configmaps \"x\" not found (HTTP 404 "
        "NotFound)");
  const auto t =
      ApiError::transport(TransportFailure::Connect, "cannot reach x: connection refused");
  CHECK(t.code() == ErrorCode::Unavailable);
  CHECK(t.http_status() == 0);
  CHECK(t.to_error().message() == "cannot reach x: connection refused");
}

TEST_CASE("ApiResult converts to Result and propagates through FED_ASSIGN_OR_RETURN") {
  ApiResult<int> good = 41;
  CHECK(propagate(good).value() == 42);
  ApiResult<int> bad = ApiError::from_response(403, status_body(403, "Forbidden", "no"));
  auto r = propagate(bad);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == ErrorCode::Permission);
  Result<int> flat = bad;
  CHECK(flat.error().code() == ErrorCode::Permission);
  ApiResult<void> v = Unexpected(Error(ErrorCode::Invalid, "bad"));
  CHECK(v.error().code() == ErrorCode::Invalid);
  CHECK(v.error().to_error().message() == "bad");
}

}  // namespace fed::kube
