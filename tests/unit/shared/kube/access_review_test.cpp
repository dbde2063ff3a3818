#include "shared/kube/access_review.hpp"

#include <doctest/doctest.h>

#include "shared/kube/delegated_auth.hpp"

using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("a bearer token is read from Authorization, any other scheme is not") {
  CHECK(fed::kube::bearer_token("Bearer abc.def") == "abc.def");
  CHECK(fed::kube::bearer_token("bearer abc") == "abc");
  CHECK_FALSE(fed::kube::bearer_token("Basic dXNlcjpwdw=="));
  CHECK_FALSE(fed::kube::bearer_token("Bearer "));
  CHECK_FALSE(fed::kube::bearer_token("Bearer a b"));
  CHECK_FALSE(fed::kube::bearer_token(""));
}

TEST_CASE("a TokenReview's answer gives the user, or why the token was refused") {
  CHECK(fed::kube::token_review("t")["spec"]["token"] == "t");
  const json answered{{"status",
                       {{"authenticated", true},
                        {"user",
                         {{"username", "system:serviceaccount:monitoring:prometheus"},
                          {"uid", "u-1"},
                          {"groups", {"system:serviceaccounts", 7}},
                          {"extra", {{"k", {"v"}}}}}}}}};
  auto user = fed::kube::reviewed_user(answered);
  REQUIRE(user);
  CHECK(user->name == "system:serviceaccount:monitoring:prometheus");
  CHECK(user->uid == "u-1");
  CHECK(user->groups == std::vector<std::string>{"system:serviceaccounts"});

  auto refused = fed::kube::reviewed_user(
      {{"status", {{"authenticated", false}, {"error", "token expired"}}}});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code() == fed::ErrorCode::Permission);
  CHECK(refused.error().message() == "token expired");
  // Malformed answers are errors, never a user.
  CHECK(fed::kube::reviewed_user({{"status", {{"authenticated", "yes"}}}}).error().code() ==
        fed::ErrorCode::Permission);
  CHECK(fed::kube::reviewed_user({{"status", {{"authenticated", true}}}}).error().code() ==
        fed::ErrorCode::Invalid);
  CHECK(fed::kube::reviewed_user(json::array()).error().code() == fed::ErrorCode::Invalid);

  const json review = fed::kube::non_resource_review(*user, "/metrics", "get");
  CHECK(review["kind"] == "SubjectAccessReview");
  CHECK(review["spec"]["user"] == "system:serviceaccount:monitoring:prometheus");
  CHECK(review["spec"]["uid"] == "u-1");
  CHECK(review["spec"]["extra"] == json{{"k", {"v"}}});
  CHECK(review["spec"]["nonResourceAttributes"] == json{{"path", "/metrics"}, {"verb", "get"}});
}

TEST_CASE("a SubjectAccessReview allows only when it says so") {
  std::string why;
  CHECK(fed::kube::review_allowed({{"status", {{"allowed", true}}}}, why));
  CHECK_FALSE(fed::kube::review_allowed({{"status", {{"allowed", false}, {"reason", "no"}}}}, why));
  CHECK(why == "no");
  CHECK_FALSE(fed::kube::review_allowed({{"status", {{"allowed", "true"}}}}, why));
  CHECK_FALSE(fed::kube::review_allowed(json::object(), why));
  CHECK(why == "no RBAC rule allows it");
  CHECK_FALSE(fed::kube::review_allowed(json("x"), why));
}

TEST_CASE("verdicts are kept for their time, by token digest, path and verb; bounded") {
  fed::kube::VerdictCache cache(10s, 3);
  const auto t0 = fed::kube::VerdictCache::Clock::now();
  const std::string key = fed::kube::verdict_key("secret-token", "/metrics", "get");
  CHECK(key.find("secret-token") == std::string::npos);
  CHECK(key.size() == 64 + std::string(" /metrics get").size());
  CHECK(key != fed::kube::verdict_key("secret-token", "/metrics", "post"));
  CHECK(key != fed::kube::verdict_key("other-token", "/metrics", "get"));

  CHECK_FALSE(cache.lookup(key, t0));
  cache.store(key, {403, "Forbidden"}, t0);
  REQUIRE(cache.lookup(key, t0 + 9s));
  CHECK(cache.lookup(key, t0 + 9s)->status == 403);
  CHECK_FALSE(cache.lookup(key, t0 + 10s));  // expired, and dropped
  CHECK(cache.size() == 0);

  for (int i = 0; i < 3; ++i) cache.store("k" + std::to_string(i), {200, ""}, t0);
  cache.store("k3", {200, ""}, t0 + 1s);  // full, nothing expired: starts over
  CHECK(cache.size() == 1);
  cache.store("k4", {200, ""}, t0 + 1s);
  cache.store("k5", {200, ""}, t0 + 5s);
  cache.store("k6", {401, ""}, t0 + 12s);  // full: the two expired ones go first
  CHECK(cache.size() == 2);
  CHECK_FALSE(cache.lookup("k3", t0 + 12s));
  CHECK(cache.lookup("k5", t0 + 12s));
  CHECK(cache.lookup("k6", t0 + 12s));
}
