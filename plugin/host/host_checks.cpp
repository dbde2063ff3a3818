#include "plugin/host/host_checks.hpp"

#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/names.hpp"

namespace fed::plugin {

using nlohmann::json;

std::string ready_status(const json& object) {
  const auto conditions = fedapi::read_conditions(object.value("status", json::object()));
  const fedapi::Condition* ready = fedapi::find_condition(conditions, "Ready");
  return ready ? ready->status : "Unknown";
}

Status check_removal_keeps_quorum(const json& hosts, const std::string& name) {
  std::size_t total = 0, healthy_others = 0;
  bool found = false;
  for (const auto& h : hosts.value("items", json::array())) {
    ++total;
    if (h["metadata"].value("name", "") == name) {
      found = true;
    } else if (ready_status(h) == "True") {
      ++healthy_others;
    }
  }
  if (!found) {
    return fail(ErrorCode::NotFound,
                "no host " + name + " in this federation: kubectl fed host list");
  }
  if (total <= 1) {
    return fail(ErrorCode::Invalid, name + " is the federation's last host: it cannot be removed");
  }
  const std::size_t quorum = (total - 1) / 2 + 1;
  if (healthy_others < quorum) {
    return fail(ErrorCode::Invalid,
                "removing " + name + " would leave the federation etcd without a quorum: " +
                    std::to_string(healthy_others) + " of the other " + std::to_string(total - 1) +
                    " hosts' members are healthy and " + std::to_string(quorum) +
                    " are needed (kubectl fed host list)");
  }
  return ok();
}

}  // namespace fed::plugin
