#include "plugin/host/host_status.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "plugin/connect/cluster_facts.hpp"
#include "shared/kube/pod_phase.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

json items(const std::optional<json>& list) {
  return list ? list->value("items", json::array()) : json::array();
}

// The member's pod: a ready one if any (a finished one stays listed beside its replacement).
json etcd_member(const std::optional<json>& pods) {
  if (!pods) return {{"state", "unknown"}};
  json member{{"state", "missing"}};
  for (const auto& pod : items(pods)) {
    if (kube::pod_finished(pod)) continue;
    const bool ready = ready_condition(pod);
    member = {{"state", ready ? "healthy" : "unhealthy"},
              {"node", pod.value("spec", json::object()).value("nodeName", "")}};
    if (ready) break;
  }
  return member;
}

json managers(const std::optional<json>& pods) {
  int ready = 0, total = 0;
  std::string leader_pod;
  for (const auto& pod : items(pods)) {
    if (kube::pod_finished(pod)) continue;
    ++total;
    if (ready_condition(pod)) ++ready;
    const json labels = pod["metadata"].value("labels", json::object());
    if (labels.value("kubectl-fed.io/manager-leader", "") == "true") {
      leader_pod = pod["metadata"].value("name", "");
    }
  }
  json m{{"ready", ready}, {"total", total}};
  if (!leader_pod.empty()) m["leaderPod"] = leader_pod;
  return m;
}

// What the leading manager's probe says of a host's member (FederationHost status.etcd) and
// its phase, merged into `etcd`.
void merge_probe(json& etcd, const json& federation_host) {
  const json status = federation_host.value("status", json::object());
  const std::string phase = status.value("phase", "");
  if (!phase.empty()) etcd["phase"] = phase;
  const json probed = status.value("etcd", json::object());
  for (const char* key : {"health", "lag", "raftLeader", "message"}) {
    if (probed.contains(key) && !probed[key].is_null()) etcd[key] = probed[key];
  }
}

std::string name_of(const json& object) {
  return object.value("metadata", json::object()).value("name", "");
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
  const std::string leader_host = leader.is_null() ? "" : leader.value("host", "");
  std::string role = "no leader";
  if (!leader.is_null()) role = leader_host == observed.host_id ? "leader" : "follower";
  json here{{"name", observed.host_id},
            {"role", role},
            {"etcd", etcd_member(observed.etcd_pods)},
            {"managers", managers(observed.manager_pods)}};
  json others = json::array();
  if (observed.federation_hosts) {
    const json listed = items(observed.federation_hosts);
    std::vector<json> hosts(listed.begin(), listed.end());
    std::sort(hosts.begin(), hosts.end(),
              [](const json& a, const json& b) { return name_of(a) < name_of(b); });
    for (const auto& h : hosts) {
      const std::string name = name_of(h);
      if (name == observed.host_id) {
        merge_probe(here["etcd"], h);
        continue;
      }
      json etcd = json::object();
      merge_probe(etcd, h);
      const std::string row_role = name == leader_host                         ? "leader"
                                   : etcd.value("health", "") == "unreachable" ? "unreachable"
                                                                               : "follower";
      others.push_back({{"name", name}, {"role", row_role}, {"etcd", etcd}, {"managers", nullptr}});
    }
  }
  json hosts = json::array({here});
  for (auto& o : others) hosts.push_back(std::move(o));
  return {{"leader", leader}, {"hosts", hosts}};
}

Table hosts_table(const json& doc) {
  Table t;
  t.headers = {"HOST", "ROLE", "ETCD MEMBER", "LAG", "MANAGERS READY", "LEADER POD"};
  for (const auto& h : doc.value("hosts", json::array())) {
    const json& etcd = h["etcd"];
    std::string member = etcd.value("health", etcd.value("state", "unknown"));
    const std::string phase = etcd.value("phase", "Member");
    if (phase != "Member") member += " (" + phase + ")";
    if (etcd.value("raftLeader", false)) member += ", raft leader";
    std::string lag = "-";
    if (etcd.contains("lag")) {
      lag = std::to_string(etcd["lag"].get<std::uint64_t>()) + " entries";
    } else if (etcd.value("health", "") == "healthy") {
      lag = "in sync";
    }
    const json& m = h["managers"];
    std::string ready = "-", leader_pod = "-";
    if (m.is_object()) {
      ready = std::to_string(m.value("ready", 0)) + "/" + std::to_string(m.value("total", 0));
      leader_pod = m.value("leaderPod", "-");
    }
    t.rows.push_back({h.value("name", ""), h.value("role", ""), member, lag, ready, leader_pod});
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
