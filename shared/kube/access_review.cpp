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
  const json* status = answered.is_object() ? &answered : nullptr;
  if (status && status->contains("status") && (*status)["status"].is_object()) {
    status = &(*status)["status"];
  } else {
    return fail(ErrorCode::Invalid, "TokenReview answer without a status");
  }
  const auto authenticated = status->find("authenticated");
  if (authenticated == status->end() || !authenticated->is_boolean() ||
      !authenticated->get<bool>()) {
    std::string why(util::string_field(*status, "error"));
    return fail(ErrorCode::Permission, why.empty() ? "the token is not valid" : why);
  }
  const auto user = status->find("user");
  if (user == status->end() || !user->is_object()) {
    return fail(ErrorCode::Invalid, "TokenReview answer without status.user");
  }
  ReviewedUser reviewed;
  reviewed.name = util::string_field(*user, "username");
  reviewed.uid = util::string_field(*user, "uid");
  if (reviewed.name.empty()) {
    return fail(ErrorCode::Invalid, "TokenReview answer without status.user.username");
  }
  if (const auto groups = user->find("groups"); groups != user->end() && groups->is_array()) {
    for (const auto& group : *groups) {
      if (group.is_string()) reviewed.groups.push_back(group.get<std::string>());
    }
  }
  if (const auto extra = user->find("extra"); extra != user->end() && extra->is_object()) {
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
  static const json kNone = json::object();
  const auto status_it = answered.is_object() ? answered.find("status") : answered.end();
  const json& status = answered.is_object() && status_it != answered.end() ? *status_it : kNone;
  const auto allowed = status.is_object() ? status.find("allowed") : status.end();
  if (status.is_object() && allowed != status.end() && allowed->is_boolean() &&
      allowed->get<bool>()) {
    return true;
  }
  why = util::string_field(status, "reason");
  if (why.empty()) why = util::string_field(status, "evaluationError");
  if (why.empty()) why = "no RBAC rule allows it";
  return false;
}

}  // namespace fed::kube
