#include "agent/manager/offload/namespaces/accepted_replicas.hpp"

#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/namespace_map.hpp"

namespace fed::offload {

std::map<std::string, std::string> accepted_replicas(const nlohmann::json& namespace_map) {
  std::map<std::string, std::string> out;
  if (!namespace_map.contains("status")) return out;
  auto status = fedapi::decode<fedapi::NamespaceMapStatus>(namespace_map["status"], "NamespaceMap");
  if (!status) return out;
  for (const auto& [local, entry] : status->current_mapping) {
    if (entry.phase == fedapi::MappingPhase::Accepted) out[local] = entry.remote_namespace;
  }
  return out;
}

std::vector<ReplicaClient> replicas_of(const kube::Informer& namespace_maps,
                                       const MemberClient& member_client, const std::string& ns,
                                       bool& missing) {
  std::vector<ReplicaClient> out;
  for (const auto& nm : namespace_maps.store().list()) {
    const auto replicas = accepted_replicas(*nm);
    const auto entry = replicas.find(ns);
    if (entry == replicas.end()) continue;
    const std::string id = (*nm)["metadata"].value("name", "");
    auto client = member_client(id);
    if (!client) {
      missing = true;
      continue;
    }
    out.push_back({id, entry->second, *client});
  }
  return out;
}

}  // namespace fed::offload
