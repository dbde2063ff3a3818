#include "agent/manager/offload/reflection/member_reachability.hpp"

namespace fed::offload {

using nlohmann::json;

std::optional<std::string> unreachable_reason(const json* host_peering) {
  if (host_peering == nullptr) return std::nullopt;
  const json* tunnel = nullptr;
  if (const auto s = host_peering->find("status"); s != host_peering->end() && s->is_object()) {
    if (const auto t = s->find("tunnel"); t != s->end() && t->is_object()) tunnel = &*t;
  }
  if (tunnel == nullptr || tunnel->value("state", "") != "Lost") return std::nullopt;
  const auto m = tunnel->find("message");
  return m != tunnel->end() && m->is_string() && !m->get<std::string>().empty()
             ? m->get<std::string>()
             : std::string("the host gateway reports its tunnel with the member lost");
}

json not_ready_pod_status(json status, std::string_view reason, const std::string& why,
                          const std::string& now) {
  if (!status.is_object()) status = json::object();
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  for (const char* type : {"ContainersReady", "Ready"}) {
    json wanted{{"type", type},
                {"status", "False"},
                {"reason", std::string(reason)},
                {"message", why},
                {"lastTransitionTime", now}};
    bool found = false;
    for (auto& c : conditions) {
      if (!c.is_object() || c.value("type", "") != type) continue;
      found = true;
      if (c.value("status", "") == "False") {
        wanted["lastTransitionTime"] = c.value("lastTransitionTime", now);
      }
      if (c.contains("lastProbeTime")) wanted["lastProbeTime"] = c["lastProbeTime"];
      c = std::move(wanted);
      break;
    }
    if (!found) conditions.push_back(std::move(wanted));
  }
  // Init containers that completed stay as they are.
  if (status.contains("containerStatuses") && status["containerStatuses"].is_array()) {
    for (auto& c : status["containerStatuses"]) {
      if (c.is_object()) c["ready"] = false;
    }
  }
  return status;
}

}  // namespace fed::offload
