#include "agent/manager/offload/reflection/reflected_service.hpp"

#include <algorithm>
#include <set>

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

}  // namespace

bool reflected_service(const json& service) {
  const json spec = service.value("spec", json::object());
  const std::string type = spec.value("type", "ClusterIP");
  const std::string ip = spec.value("clusterIP", "");
  return type != "ExternalName" && !ip.empty() && ip != "None";
}

json twin_service(const json& service, const TwinTarget& target) {
  json ports = json::array();
  for (const auto& p : service["spec"].value("ports", json::array())) {
    json port{{"port", p.value("port", 0)}, {"protocol", p.value("protocol", "TCP")}};
    if (p.contains("name")) port["name"] = p["name"];
    ports.push_back(std::move(port));
  }
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata",
           {{"name", service["metadata"].value("name", "")},
            {"namespace", target.remote_namespace},
            {"labels", origin_labels(target.host_cluster_id, target.host_namespace)}}},
          {"spec", {{"type", "ClusterIP"}, {"ports", std::move(ports)}}}};
}

ServiceEndpoints host_endpoints(const std::vector<json>& slices) {
  ServiceEndpoints out;
  std::set<std::string> addresses;
  for (const auto& slice : slices) {
    if (slice.value("addressType", "") != "IPv4") continue;
    if (out.ports.empty()) out.ports = slice.value("ports", json::array());
    for (const auto& e : slice.value("endpoints", json::array())) {
      const json conditions = e.value("conditions", json::object());
      if (!conditions.value("ready", true)) continue;
      for (const auto& a : e.value("addresses", json::array()))
        addresses.insert(a.get<std::string>());
    }
  }
  out.addresses.assign(addresses.begin(), addresses.end());
  return out;
}

json twin_endpoint_slice(const std::string& service, const std::vector<std::string>& addresses,
                         const json& ports, const TwinTarget& target) {
  json labels = origin_labels(target.host_cluster_id, target.host_namespace);
  labels["kubernetes.io/service-name"] = service;
  labels["endpointslice.kubernetes.io/managed-by"] = std::string(kSliceManager);
  json endpoints = json::array();
  for (const auto& a : addresses) {
    endpoints.push_back({{"addresses", json::array({a})}, {"conditions", {{"ready", true}}}});
  }
  return {{"apiVersion", "discovery.k8s.io/v1"},
          {"kind", "EndpointSlice"},
          {"metadata",
           {{"name", service + std::string(kTwinSliceSuffix)},
            {"namespace", target.remote_namespace},
            {"labels", std::move(labels)}}},
          {"addressType", "IPv4"},
          {"endpoints", std::move(endpoints)},
          {"ports", ports}};
}

}  // namespace fed::offload
