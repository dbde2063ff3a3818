#include "agent/manager/offload/virtual_kubelet/virtual_node.hpp"

#include <cstdio>
#include <ctime>

#include "shared/fedapi/group.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/util/quantity.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

constexpr std::string_view kPartOfLabel = "app.kubernetes.io/part-of";
constexpr std::string_view kPartOfValue = "kubectl-fed";
constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";

// The offered quantity as the Node's capacity text; "0" when not offered.
Result<std::string> capacity_of(const std::string& offered, std::string_view field) {
  if (offered.empty()) return std::string("0");
  auto q = util::parse_quantity(offered);
  if (!q) {
    return fail(ErrorCode::Invalid,
                std::string(field) + ": " + q.error().message() +
                    "; fix it with kubectl fed join --share-cpu/--share-memory");
  }
  if (q->as_double() < 0) {
    return fail(ErrorCode::Invalid, std::string(field) + ": \"" + offered +
                                        "\" is negative; offer a quantity of zero or more");
  }
  return offered;
}

// The lastTransitionTime to keep for condition `type` with `status` from `previous` (a Node).
std::string transition_time(const json& previous, std::string_view type, std::string_view status,
                            const std::string& now) {
  if (!previous.is_object()) return now;
  const json conditions =
      previous.value("status", json::object()).value("conditions", json::array());
  for (const auto& c : conditions) {
    if (c.value("type", "") == type && c.value("status", "") == status) {
      return c.value("lastTransitionTime", now);
    }
  }
  return now;
}

}  // namespace

Readiness readiness(const fedapi::FederatedClusterStatus& status, Leaving leaving) {
  if (leaving == Leaving::Yes) {
    return {false, "MemberLeaving", "the member is being unjoined"};
  }
  for (const char* type : {"NetworkReady", "Ready"}) {
    const auto* c = fedapi::find_condition(status.conditions, type);
    if (c == nullptr) {
      return {false, "MemberNotReported",
              std::string("the FederatedCluster has no ") + type + " condition yet"};
    }
    if (c->status != "True") {
      std::string message = std::string("FederatedCluster ") + type + " is " + c->status;
      if (!c->message.empty()) message += ": " + c->message;
      return {false, c->reason.empty() ? std::string("MemberNotReady") : c->reason, message};
    }
  }
  return {true, "MemberReady", "peering and network of the member are ready"};
}

Result<json> virtual_node(const fedapi::FederatedClusterSpec& spec, const Readiness& ready,
                          const json& previous, std::chrono::system_clock::time_point now,
                          const std::optional<KubeletEndpoint>& kubelet) {
  FED_ASSIGN_OR_RETURN(auto cpu, capacity_of(spec.offered_cpu, "spec.offered.cpu"));
  FED_ASSIGN_OR_RETURN(auto memory, capacity_of(spec.offered_memory, "spec.offered.memory"));
  const std::string name = virtual_node_name(spec.cluster_id);
  const std::string stamp = util::format_rfc3339(now);

  json labels = json::object();
  for (const auto& [k, v] : spec.cluster_labels) labels[k] = v;
  labels[std::string(fedapi::kTypeLabel)] = fedapi::kTypeVirtualNode;
  labels[std::string(fedapi::kClusterIdLabel)] = spec.cluster_id;
  labels[std::string(kHostnameLabel)] = name;
  labels[std::string(kPartOfLabel)] = kPartOfValue;

  json conditions = json::array();
  auto condition = [&](std::string_view type, bool value, const std::string& reason,
                       const std::string& message) {
    const std::string status = value ? "True" : "False";
    conditions.push_back({{"type", type},
                          {"status", status},
                          {"reason", reason},
                          {"message", message},
                          {"lastHeartbeatTime", stamp},
                          {"lastTransitionTime", transition_time(previous, type, status, stamp)}});
  };
  condition("Ready", ready.ready, ready.reason, ready.message);
  for (const char* pressure : {"MemoryPressure", "DiskPressure", "PIDPressure"}) {
    condition(pressure, false, "VirtualNode", "a virtual node reports no pressure");
  }
  const json resources{{"cpu", cpu}, {"memory", memory}, {"pods", kDefaultPods}};
  return json{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", name}, {"labels", labels}}},
      {"spec",
       {{"taints", json::array({{{"key", fedapi::kVirtualNodeTaintKey},
                                 {"value", fedapi::kVirtualNodeTaintValue},
                                 {"effect", fedapi::kVirtualNodeTaintEffect}}})}}},
      {"status",
       {{"capacity", resources},
        {"allocatable", resources},
        {"conditions", conditions},
        {"addresses", kubelet
                          ? json::array({{{"type", "InternalIP"}, {"address", kubelet->address}}})
                          : json::array()},
        {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", kubelet ? kubelet->port : 0}}}}}}},
  };
}

json node_lease(std::string_view node_name, std::string_view node_uid,
                std::chrono::system_clock::time_point now) {
  json metadata{{"name", node_name}, {"namespace", kNodeLeaseNamespace}};
  if (!node_uid.empty()) {
    metadata["ownerReferences"] = json::array(
        {{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node_name}, {"uid", node_uid}}});
  }
  return json{{"apiVersion", "coordination.k8s.io/v1"},
              {"kind", "Lease"},
              {"metadata", metadata},
              {"spec",
               {{"holderIdentity", node_name},
                {"leaseDurationSeconds", kLeaseDurationSeconds},
                {"renewTime", format_micro_time(now)}}}};
}

std::string format_micro_time(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(micros / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(micros % 1000000));
  return buf;
}

}  // namespace fed::offload
