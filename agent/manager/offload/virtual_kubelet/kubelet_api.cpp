#include "agent/manager/offload/virtual_kubelet/kubelet_api.hpp"

#include <array>

#include "shared/util/strings.hpp"

namespace fed::offload {

using nlohmann::json;

Result<ContainerLogsTarget> parse_container_logs_path(std::string_view path) {
  if (!path.starts_with(kContainerLogsPrefix)) {
    return fail(ErrorCode::Invalid, "not a container log path: " + std::string(path));
  }
  const auto parts = util::split(path.substr(kContainerLogsPrefix.size()), '/');
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2].empty()) {
    return fail(ErrorCode::Invalid,
                "expected /containerLogs/<namespace>/<pod>/<container>, got " + std::string(path));
  }
  return ContainerLogsTarget{std::string(parts[0]), std::string(parts[1]), std::string(parts[2])};
}

std::string member_log_query(std::string_view kubelet_query, std::string_view container) {
  static constexpr std::array<std::string_view, 7> kKept = {
      "follow", "previous", "sinceSeconds", "sinceTime", "timestamps", "tailLines", "limitBytes"};
  std::string out = "container=" + std::string(container);
  for (const auto& pair : util::split(kubelet_query, '&')) {
    const std::string_view key = std::string_view(pair).substr(0, pair.find('='));
    for (const auto kept : kKept) {
      if (key == kept) out += "&" + std::string(pair);
    }
  }
  return out;
}

Result<StreamTarget> parse_stream_path(std::string_view path) {
  const auto parts = util::split(path, '/');  // "", kind, ns, pod, [uid,] [container]
  const std::string kind = parts.size() > 1 ? parts[1] : "";
  const bool port_forward = kind == "portForward";
  const bool sized = port_forward ? parts.size() == 4 || parts.size() == 5
                                  : parts.size() == 5 || parts.size() == 6;
  bool empty_part = false;
  for (std::size_t i = 1; i < parts.size(); ++i) empty_part = empty_part || parts[i].empty();
  if ((kind != "exec" && kind != "attach" && !port_forward) || !sized || empty_part) {
    return fail(ErrorCode::Invalid,
                "expected /exec|attach/<namespace>/<pod>[/<uid>]/<container> or "
                "/portForward/<namespace>/<pod>[/<uid>], got " +
                    std::string(path));
  }
  return StreamTarget{port_forward ? "portforward" : kind, parts[2], parts[3],
                      port_forward ? "" : parts.back()};
}

std::string member_stream_query(const StreamTarget& target, std::string_view kubelet_query) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kRenamed = {{
      {"command", "command"},
      {"input", "stdin"},
      {"output", "stdout"},
      {"error", "stderr"},
      {"tty", "tty"},
      {"ports", "ports"},
  }};
  std::string out = target.container.empty() ? "" : "container=" + target.container;
  for (const auto& pair : util::split(kubelet_query, '&')) {
    const auto eq = pair.find('=');
    const std::string_view key = std::string_view(pair).substr(0, eq);
    for (const auto& [from, to] : kRenamed) {
      if (key != from) continue;
      if (!out.empty()) out += "&";
      out += std::string(to) + (eq == std::string::npos ? "" : pair.substr(eq));
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> upgrade_headers(
    const std::vector<std::pair<std::string, std::string>>& request_headers) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : request_headers) {
    const std::string lower = util::to_lower(name);
    if (lower == "connection" || lower == "upgrade" || lower == "x-stream-protocol-version" ||
        lower.starts_with("sec-websocket-")) {
      out.emplace_back(name, value);
    }
  }
  return out;
}

json node_proxy_review(std::string_view user, const std::vector<std::string>& groups,
                       std::string_view node, std::string_view verb) {
  return json{{"apiVersion", "authorization.k8s.io/v1"},
              {"kind", "SubjectAccessReview"},
              {"spec",
               {{"user", user},
                {"groups", groups},
                {"resourceAttributes",
                 {{"verb", verb},
                  {"group", ""},
                  {"version", "v1"},
                  {"resource", "nodes"},
                  {"subresource", "proxy"},
                  {"name", node}}}}}};
}

}  // namespace fed::offload
