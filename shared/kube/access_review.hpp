#pragma once
// Delegated authentication and authorization, as Kubernetes components do it for their secure
// ports (kube-scheduler's /metrics, the kubelet's API): a bearer token is checked by the API
// server (TokenReview), then what its user may do (SubjectAccessReview). The bodies and the
// reading of the answers; delegated_auth.hpp makes the calls.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::kube {

// Who the API server says a token belongs to.
struct ReviewedUser {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  nlohmann::json extra = nlohmann::json::object();
};

// The token of an `Authorization: Bearer <token>` header; nullopt for any other header.
std::optional<std::string_view> bearer_token(std::string_view authorization);

// A TokenReview of `token` (no audiences: the API server's own).
nlohmann::json token_review(std::string_view token);

// The user of an answered TokenReview. Permission with the API server's reason when it did not
// authenticate the token; Invalid when the answer is malformed.
Result<ReviewedUser> reviewed_user(const nlohmann::json& answered);

// A SubjectAccessReview asking whether `user` may `verb` the non-resource URL `path`.
nlohmann::json non_resource_review(const ReviewedUser& user, std::string_view path,
                                   std::string_view verb);

// Whether an answered SubjectAccessReview allowed the request; the reason otherwise in `why`.
bool review_allowed(const nlohmann::json& answered, std::string& why);

}  // namespace fed::kube
