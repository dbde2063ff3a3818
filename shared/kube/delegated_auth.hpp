#pragma once
// Who may read an endpoint such as /metrics: the caller's bearer token checked by the API
// server (TokenReview), then its user's right to the path (SubjectAccessReview of a
// non-resource URL) — kube-scheduler's and the kubelet's secure ports, controller-runtime's
// metrics filter. A Prometheus whose ServiceAccount is bound to a ClusterRole with
// `nonResourceURLs: [/metrics], verbs: [get]` scrapes; nobody else does.

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "shared/http/message.hpp"
#include "shared/kube/dynamic_client.hpp"

namespace fed::kube {

// Verdicts by key for a while: a scrape every 15 s costs no API call, and a token sent again
// and again costs one. Bounded: when full, expired entries go, then everything.
class VerdictCache {
 public:
  using Clock = std::chrono::steady_clock;
  struct Verdict {
    int status = 0;  // 200: allowed; 401 or 403: refused
    std::string message;
  };
  VerdictCache(std::chrono::seconds ttl, std::size_t max_entries)
      : ttl_(ttl), max_entries_(max_entries) {}

  std::optional<Verdict> lookup(const std::string& key, Clock::time_point now);
  void store(const std::string& key, Verdict verdict, Clock::time_point now);
  std::size_t size() const;

 private:
  struct Entry {
    Verdict verdict;
    Clock::time_point expires;
  };
  const std::chrono::seconds ttl_;
  const std::size_t max_entries_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

// The cache key of a token for one path and verb: the token's SHA-256 (the token itself is not
// kept), the path and the verb.
std::string verdict_key(std::string_view token, std::string_view path, std::string_view verb);

class DelegatedAuth {
 public:
  struct Options {
    std::chrono::seconds ttl{10};
    std::size_t max_entries = 1024;
  };
  DelegatedAuth(std::shared_ptr<DynamicClient> client, Options options);

  // nullopt when the caller may `verb` the request's path. Otherwise the answer to send: 401
  // without a valid bearer token, 403 when its user may not, 503 when a review could not be
  // made (not cached: the next request asks again).
  std::optional<http::Response> check(const http::Request& request, std::string_view verb);

 private:
  Result<VerdictCache::Verdict> review(std::string_view token, std::string_view path,
                                       std::string_view verb);

  std::shared_ptr<DynamicClient> client_;
  VerdictCache cache_;
};

}  // namespace fed::kube
