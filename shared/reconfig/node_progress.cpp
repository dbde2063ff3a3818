#include "shared/reconfig/node_progress.hpp"

#include <array>
#include <utility>

#include "shared/util/rfc3339.hpp"

namespace fed::reconfig {
namespace {

constexpr std::array<std::pair<Phase, std::string_view>, 7> kPhases = {{
    {Phase::Started, "Started"},
    {Phase::ConfigWritten, "ConfigWritten"},
    {Phase::Restarted, "Restarted"},
    {Phase::Succeeded, "Succeeded"},
    {Phase::RollingBack, "RollingBack"},
    {Phase::RolledBack, "RolledBack"},
    {Phase::Failed, "Failed"},
}};

std::string key(std::string_view name) {
  return std::string(kAnnotationPrefix) + std::string(name);
}

}  // namespace

std::string_view to_string(Phase phase) {
  for (const auto& [p, name] : kPhases) {
    if (p == phase) return name;
  }
  return "Unknown";
}

Result<Phase> parse_phase(std::string_view text) {
  for (const auto& [p, name] : kPhases) {
    if (name == text) return p;
  }
  return Error(ErrorCode::Invalid,
               "annotation " + key("phase") + ": unknown phase \"" + std::string(text) + "\"");
}

bool in_progress(Phase phase) {
  return phase == Phase::Started || phase == Phase::ConfigWritten || phase == Phase::Restarted ||
         phase == Phase::RollingBack;
}

nlohmann::json progress_patch(Progress progress, std::chrono::system_clock::time_point now) {
  progress.updated = util::format_rfc3339(now);
  nlohmann::json annotations = {
      {key("phase"), std::string(to_string(progress.phase))},
      {key("desired"), progress.desired.dump()},
      {key("original"), progress.original.dump()},
      {key("message"), progress.message},
      {key("updated"), progress.updated},
  };
  return {{"metadata", {{"annotations", std::move(annotations)}}}};
}

Result<std::optional<Progress>> progress_from_node(const nlohmann::json& node) {
  const nlohmann::json* annotations = nullptr;
  if (node.contains("metadata") && node["metadata"].contains("annotations")) {
    annotations = &node["metadata"]["annotations"];
  }
  if (annotations == nullptr || !annotations->contains(key("phase"))) {
    return std::optional<Progress>();
  }
  const auto text = [&](std::string_view name) { return annotations->value(key(name), ""); };
  Progress progress;
  FED_ASSIGN_OR_RETURN(progress.phase, parse_phase(text("phase")));
  for (auto [name, target] :
       {std::pair{"desired", &progress.desired}, std::pair{"original", &progress.original}}) {
    *target = nlohmann::json::parse(text(name), nullptr, false);
    if (target->is_discarded() || !target->is_object()) {
      return Error(ErrorCode::Invalid, "annotation " + key(name) +
                                           " is not a JSON object; remove the kubectl-fed.io/"
                                           "reconfigure-* annotations to start over");
    }
  }
  progress.message = text("message");
  progress.updated = text("updated");
  return std::optional<Progress>(std::move(progress));
}

}  // namespace fed::reconfig
