#include "offload/kubelet_api.hpp"

#include <array>

#include "util/strings.hpp"

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

json node_proxy_review(std::string_view user, const std::vector<std::string>& groups,
                       std::string_view node) {
  return json{{"apiVersion", "authorization.k8s.io/v1"},
              {"kind", "SubjectAccessReview"},
              {"spec",
               {{"user", user},
                {"groups", groups},
                {"resourceAttributes",
                 {{"verb", "get"},
                  {"group", ""},
                  {"version", "v1"},
                  {"resource", "nodes"},
                  {"subresource", "proxy"},
                  {"name", node}}}}}};
}

bool review_allowed(const json& answered, std::string& why) {
  const json status = answered.value("status", json::object());
  if (status.value("allowed", false)) return true;
  why = status.value("reason", "");
  if (why.empty()) why = status.value("evaluationError", "");
  if (why.empty()) why = "no RBAC rule allows it";
  return false;
}

}  // namespace fed::offload
