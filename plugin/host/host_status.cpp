#include "plugin/host/host_status.hpp"

#include <string>

namespace fed::plugin {
namespace {

using nlohmann::json;

bool pod_ready(const json& pod) {
  for (const auto& c : pod.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

json items(const std::optional<json>& list) {
  return list ? list->value("items", json::array()) : json::array();
}

json etcd_member(const std::optional<json>& pods) {
  if (!pods) return {{"state", "unknown"}};
  for (const auto& pod : items(pods)) {
    const std::string node = pod.value("spec", json::object()).value("nodeName", "");
    return {{"state", pod_ready(pod) ? "healthy" : "unhealthy"}, {"node", node}};
  }
  return {{"state", "missing"}};
}

json managers(const std::optional<json>& pods) {
  int ready = 0, total = 0;
  std::string leader_pod;
  for (const auto& pod : items(pods)) {
    ++total;
    if (pod_ready(pod)) ++ready;
    const json labels = pod["metadata"].value("labels", json::object());
    if (labels.value("kubectl-fed.io/manager-leader", "") == "true") {
      leader_pod = pod["metadata"].value("name", "");
    }
  }
  json m{{"ready", ready}, {"total", total}};
  if (!leader_pod.empty()) m["leaderPod"] = leader_pod;
  return m;
}

}  // namespace

json hosts_document(const HostObservation& observed) {
  json leader = nullptr;
  if (observed.leader) {
    const json data = observed.leader->value("data", json::object());
    const std::string holder = data.value("holder", "");
    if (!holder.empty() && holder != "None") {
      leader = {{"holder", holder},
                {"host", data.value("host", "")},
                {"epoch", data.value("epoch", "")},
                {"since", data.value("since", "")}};
      if (data.contains("failoverSeconds")) leader["failoverSeconds"] = data["failoverSeconds"];
    }
  }
  std::string role = "no leader";
  if (!leader.is_null()) role = leader["host"] == observed.host_id ? "leader" : "follower";
  return {{"leader", leader},
          {"hosts", json::array({{{"name", observed.host_id},
                                  {"role", role},
                                  {"etcd", etcd_member(observed.etcd_pods)},
                                  {"managers", managers(observed.manager_pods)}}})}};
}

Table hosts_table(const json& doc) {
  Table t;
  t.headers = {"HOST", "ROLE", "ETCD MEMBER", "MANAGERS READY", "LEADER POD"};
  for (const auto& h : doc.value("hosts", json::array())) {
    const json& m = h["managers"];
    t.rows.push_back(
        {h.value("name", ""), h.value("role", ""), h["etcd"].value("state", ""),
         std::to_string(m.value("ready", 0)) + "/" + std::to_string(m.value("total", 0)),
         m.value("leaderPod", "-")});
  }
  return t;
}

std::string leader_line(const json& doc) {
  const json& l = doc["leader"];
  if (l.is_null()) {
    return "Leader: none (no manager leads: no quorum of the federation etcd, or none started)";
  }
  std::string line = "Leader: " + l.value("holder", "") + " on host " + l.value("host", "") +
                     " (epoch " + l.value("epoch", "") + ", since " + l.value("since", "");
  if (l.contains("failoverSeconds")) {
    line += ", took over after " + l.value("failoverSeconds", "") + " s";
  }
  return line + ")";
}

}  // namespace fed::plugin
