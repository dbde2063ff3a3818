#include "shared/kube/access_review.hpp"

#include "shared/util/json_text.hpp"
#include "shared/util/strings.hpp"

namespace fed::kube {

using nlohmann::json;

std::optional<std::string_view> bearer_token(std::string_view authorization) {
  constexpr std::string_view kScheme = "Bearer ";
  // The scheme is case-insensitive (RFC 9110 11.1); the token is everything after one space.
  if (authorization.size() <= kScheme.size() ||
      !util::iequals(authorization.substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  std::string_view token = authorization.substr(kScheme.size());
  if (token.find_first_of(" \t") != std::string_view::npos) return std::nullopt;
  return token;
}

json token_review(std::string_view token) {
  return json{{"apiVersion", "authentication.k8s.io/v1"},
              {"kind", "TokenReview"},
              {"spec", {{"token", token}}}};
}

Result<ReviewedUser> reviewed_user(const json& answered) {
  const json* status = util::member(answered, "status");
  if (status == nullptr || !status->is_object()) {
    return fail(ErrorCode::Invalid, "TokenReview answer without a status");
  }
  if (const json* authenticated = util::member(*status, "authenticated");
      authenticated == nullptr || *authenticated != true) {
    std::string why(util::string_field(*status, "error"));
    return fail(ErrorCode::Permission, why.empty() ? "the token is not valid" : why);
  }
  const json* user = util::member(*status, "user");
  if (user == nullptr || !user->is_object()) {
    return fail(ErrorCode::Invalid, "TokenReview answer without status.user");
  }
  ReviewedUser reviewed;
  reviewed.name = util::string_field(*user, "username");
  reviewed.uid = util::string_field(*user, "uid");
  if (reviewed.name.empty()) {
    return fail(ErrorCode::Invalid, "TokenReview answer without status.user.username");
  }
  if (const json* groups = util::member(*user, "groups"); groups && groups->is_array()) {
    for (const auto& group : *groups) {
      if (group.is_string()) reviewed.groups.push_back(group.get<std::string>());
    }
  }
  if (const json* extra = util::member(*user, "extra"); extra && extra->is_object()) {
    reviewed.extra = *extra;
  }
  return reviewed;
}

json non_resource_review(const ReviewedUser& user, std::string_view path, std::string_view verb) {
  json spec{{"user", user.name},
            {"groups", user.groups},
            {"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (!user.extra.empty()) spec["extra"] = user.extra;
  return json{{"apiVersion", "authorization.k8s.io/v1"},
              {"kind", "SubjectAccessReview"},
              {"spec", std::move(spec)}};
}

bool review_allowed(const json& answered, std::string& why) {
  const json* status = util::member(answered, "status");
  const json* allowed = status != nullptr ? util::member(*status, "allowed") : nullptr;
  if (allowed != nullptr && *allowed == true) return true;
  why = status != nullptr ? util::string_field(*status, "reason") : "";
  if (why.empty() && status != nullptr) why = util::string_field(*status, "evaluationError");
  if (why.empty()) why = "no RBAC rule allows it";
  return false;
}

}  // namespace fed::kube
