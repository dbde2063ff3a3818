#pragma once
// The part of the kubelet API the virtual kubelet serves, as values: which container's logs the
// API server asks for (`GET /containerLogs/<ns>/<pod>/<container>?follow=...`, what `kubectl
// logs` becomes), the query the member's API server gets for the twin's log, and the
// SubjectAccessReview that decides whether the caller may use a node's kubelet API — the check
// a kubelet makes with webhook authorization. Pure.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/result.hpp"

namespace fed::offload {

inline constexpr std::string_view kContainerLogsPrefix = "/containerLogs/";
// Paths the kubelet serves over upgraded streams; the virtual kubelet answers them with an
// explanation (exec, attach and port-forward are not forwarded).
inline constexpr std::string_view kStreamingPrefixes[] = {"/exec/", "/attach/", "/portForward/",
                                                          "/run/"};

struct ContainerLogsTarget {
  std::string ns, pod, container;
  friend bool operator==(const ContainerLogsTarget&, const ContainerLogsTarget&) = default;
};

// "/containerLogs/shop/web-1/web" -> {shop, web-1, web}. Invalid for any other shape.
Result<ContainerLogsTarget> parse_container_logs_path(std::string_view path);

// The query for the member's pods/log: `container` and the kubelet's log options the API server
// passed on (follow, previous, sinceSeconds, sinceTime, timestamps, tailLines, limitBytes), kept
// as sent (already percent-encoded); anything else is dropped.
std::string member_log_query(std::string_view kubelet_query, std::string_view container);

// A SubjectAccessReview asking whether `user` in `groups` may `get` nodes/proxy of `node` —
// what a kubelet asks for every path it serves but stats, metrics, logs and checkpoint.
nlohmann::json node_proxy_review(std::string_view user, const std::vector<std::string>& groups,
                                 std::string_view node);

// Whether the answered review allowed the request; the reason otherwise in `why`.
bool review_allowed(const nlohmann::json& answered, std::string& why);

}  // namespace fed::offload
