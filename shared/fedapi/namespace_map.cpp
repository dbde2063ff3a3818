#include "shared/fedapi/namespace_map.hpp"

#include "shared/fedapi/enum_table.hpp"
#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {
namespace {

constexpr EnumTable<MappingPhase, 3> kMappingPhases{{
    {MappingPhase::Accepted, "Accepted"},
    {MappingPhase::CreationLoopBackOff, "CreationLoopBackOff"},
    {MappingPhase::Terminating, "Terminating"},
}};

}  // namespace

std::string_view to_string(MappingPhase phase) {
  return enum_name(kMappingPhases, phase);
}

void to_json(nlohmann::json& j, const NamespaceMapSpec& spec) {
  j = nlohmann::json::object();
  j["clusterID"] = spec.cluster_id;
  j["desiredMapping"] = spec.desired_mapping;
}

void from_json(const nlohmann::json& j, NamespaceMapSpec& spec) {
  spec.cluster_id = read_string(j, "clusterID", Presence::Required);
  spec.desired_mapping = read_string_map(j, "desiredMapping");
}

void to_json(nlohmann::json& j, const RemoteNamespaceStatus& s) {
  j = nlohmann::json::object();
  j["remoteNamespace"] = s.remote_namespace;
  j["phase"] = std::string(to_string(s.phase));
}

void from_json(const nlohmann::json& j, RemoteNamespaceStatus& s) {
  s.remote_namespace = read_string(j, "remoteNamespace", Presence::Required);
  s.phase = enum_from_name(kMappingPhases, "phase", read_string(j, "phase", Presence::Required));
}

void to_json(nlohmann::json& j, const NamespaceMapStatus& status) {
  j = nlohmann::json::object();
  auto& current = j["currentMapping"] = nlohmann::json::object();
  for (const auto& [local, remote] : status.current_mapping) current[local] = remote;
}

void from_json(const nlohmann::json& j, NamespaceMapStatus& status) {
  status.current_mapping.clear();
  const nlohmann::json current = read_object(j, "currentMapping");
  for (const auto& item : current.items()) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda (the fuzz preset).
    const std::string& local = item.key();
    const nlohmann::json& entry = item.value();
    status.current_mapping[local] = within("currentMapping." + local, [&] {
      if (!entry.is_object()) {
        throw FieldError("must be an object, not " + std::string(entry.type_name()));
      }
      return entry.get<RemoteNamespaceStatus>();
    });
  }
}

}  // namespace fed::fedapi
