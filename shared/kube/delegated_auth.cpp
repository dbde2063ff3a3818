#include "shared/kube/delegated_auth.hpp"

#include <openssl/evp.h>
#include <spdlog/spdlog.h>

#include <array>

#include "shared/kube/access_review.hpp"

namespace fed::kube {
namespace {

const ResourceRef kTokenReviews{{"authentication.k8s.io", "v1", "tokenreviews"}, "", "", ""};
const ResourceRef kAccessReviews{
    {"authorization.k8s.io", "v1", "subjectaccessreviews"}, "", "", ""};

}  // namespace

std::optional<VerdictCache::Verdict> VerdictCache::lookup(const std::string& key,
                                                          Clock::time_point now) {
  std::lock_guard lock(mu_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  if (it->second.expires <= now) {
    entries_.erase(it);
    return std::nullopt;
  }
  return it->second.verdict;
}

void VerdictCache::store(const std::string& key, Verdict verdict, Clock::time_point now) {
  std::lock_guard lock(mu_);
  if (entries_.size() >= max_entries_ && !entries_.contains(key)) {
    std::erase_if(entries_, [now](const auto& entry) { return entry.second.expires <= now; });
    if (entries_.size() >= max_entries_) entries_.clear();
  }
  entries_[key] = Entry{std::move(verdict), now + ttl_};
}

std::size_t VerdictCache::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

std::string verdict_key(std::string_view token, std::string_view path, std::string_view verb) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  // One-shot digest: no context handle to own.
  EVP_Digest(token.data(), token.size(), digest.data(), &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key;
  key.reserve(length * 2 + path.size() + verb.size() + 2);
  for (unsigned int i = 0; i < length; ++i) {
    key.push_back(kHex[digest[i] >> 4]);
    key.push_back(kHex[digest[i] & 0xf]);
  }
  key.append(" ").append(path).append(" ").append(verb);
  return key;
}

DelegatedAuth::DelegatedAuth(std::shared_ptr<DynamicClient> client, Options options)
    : client_(std::move(client)), cache_(options.ttl, options.max_entries) {}

std::optional<http::Response> DelegatedAuth::check(const http::Request& request,
                                                   std::string_view verb) {
  const auto header = request.header("authorization");
  const auto token = header ? bearer_token(*header) : std::nullopt;
  if (!token || token->empty()) {
    http::Response refused = http::Response::text(401, "Unauthorized: send a bearer token");
    refused.headers.emplace_back("WWW-Authenticate", "Bearer");
    return refused;
  }
  const std::string key = verdict_key(*token, request.path, verb);
  const auto now = VerdictCache::Clock::now();
  auto verdict = cache_.lookup(key, now);
  if (!verdict) {
    auto reviewed = review(*token, request.path, verb);
    if (!reviewed) {
      spdlog::warn("delegated auth: review of a request for {} from {} failed: {}", request.path,
                   request.remote_address, reviewed.error().message());
      return http::Response::text(503, "the access review failed; try again");
    }
    cache_.store(key, *reviewed, now);
    verdict = std::move(*reviewed);
  }
  if (verdict->status == 200) return std::nullopt;
  http::Response refused = http::Response::text(verdict->status, verdict->message);
  if (verdict->status == 401) refused.headers.emplace_back("WWW-Authenticate", "Bearer");
  return refused;
}

Result<VerdictCache::Verdict> DelegatedAuth::review(std::string_view token, std::string_view path,
                                                    std::string_view verb) {
  auto answered = client_->create(kTokenReviews, token_review(token));
  if (!answered) return Unexpected(answered.error().to_error().with_context("TokenReview"));
  auto user = reviewed_user(*answered);
  if (!user && user.error().code() == ErrorCode::Permission) {
    // The API server's reason stays in its own log: the caller learns only that it failed.
    return VerdictCache::Verdict{401, "Unauthorized: the token is not valid"};
  }
  if (!user) return Unexpected(user.error());
  auto access = client_->create(kAccessReviews, non_resource_review(*user, path, verb));
  if (!access) {
    return Unexpected(access.error().to_error().with_context("SubjectAccessReview"));
  }
  std::string why;
  if (review_allowed(*access, why)) return VerdictCache::Verdict{200, ""};
  return VerdictCache::Verdict{403, "Forbidden: user \"" + user->name + "\" may not " +
                                        std::string(verb) + " " + std::string(path) + ": " + why};
}

}  // namespace fed::kube
