#pragma once
// The part of the kubelet API the virtual kubelet serves, as values: which container's logs the
// API server asks for (`GET /containerLogs/<ns>/<pod>/<container>?follow=...`, what `kubectl
// logs` becomes), the query the member's API server gets for the twin's log, and the
// SubjectAccessReview that decides whether the caller may use a node's kubelet API — the check
// a kubelet makes with webhook authorization. Pure.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::offload {

inline constexpr std::string_view kContainerLogsPrefix = "/containerLogs/";
// Paths the kubelet serves over upgraded streams (SPDY, which the API server also translates
// WebSocket clients to), relayed to the member's pods/exec, pods/attach and pods/portforward.
inline constexpr std::string_view kStreamingPrefixes[] = {"/exec/", "/attach/", "/portForward/"};
// The legacy one-shot command path, which the API server no longer uses: answered, not relayed.
inline constexpr std::string_view kRunPrefix = "/run/";

// What an upgraded kubelet request is for: "exec", "attach" or "portforward" (the API's
// subresource), and the pod and container it names (no container for port-forward).
struct StreamTarget {
  std::string subresource, ns, pod, container;
  friend bool operator==(const StreamTarget&, const StreamTarget&) = default;
};

// "/exec/<ns>/<pod>[/<uid>]/<container>", "/attach/..." alike, "/portForward/<ns>/<pod>[/<uid>]".
// Invalid for any other shape.
Result<StreamTarget> parse_stream_path(std::string_view path);

// The query for the member's pods/<subresource>: the kubelet's command, input, output, error
// and tty become command, stdin, stdout, stderr and tty, plus container; port-forward keeps its
// ports. Values stay as sent (percent-encoded); anything else is dropped.
std::string member_stream_query(const StreamTarget& target, std::string_view kubelet_query);

// The request headers an upgrade needs relayed (Connection, Upgrade, X-Stream-Protocol-Version,
// the Sec-WebSocket-* ones), in order; never the caller's credentials.
std::vector<std::pair<std::string, std::string>> upgrade_headers(
    const std::vector<std::pair<std::string, std::string>>& request_headers);

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

// A SubjectAccessReview asking whether `user` in `groups` may `verb` nodes/proxy of `node` —
// what a kubelet asks for every path it serves but stats, metrics, logs and checkpoint, with
// the verb of the HTTP method (GET: get, POST: create).
nlohmann::json node_proxy_review(std::string_view user, const std::vector<std::string>& groups,
                                 std::string_view node, std::string_view verb = "get");

}  // namespace fed::offload
