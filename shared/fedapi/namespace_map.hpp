#pragma once
// NamespaceMap (spec 001 §2.4.1): one per member cluster on the host, named after the member's
// cluster id. spec.desiredMapping is what the NamespaceOffloading controller wants replicated
// there (local namespace -> remote namespace); status.currentMapping, written by the
// NamespaceMap controller, is the source of truth about the remote namespaces.

#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fed::fedapi {

// Accepted: the remote namespace exists; CreationLoopBackOff: creating it keeps failing;
// Terminating: it is being deleted.
enum class MappingPhase { Accepted, CreationLoopBackOff, Terminating };

// "Accepted" / "CreationLoopBackOff" / "Terminating".
std::string_view to_string(MappingPhase phase);

struct NamespaceMapSpec {
  std::string cluster_id;                              // the member (immutable)
  std::map<std::string, std::string> desired_mapping;  // local namespace -> remote namespace

  friend bool operator==(const NamespaceMapSpec&, const NamespaceMapSpec&) = default;
};

struct RemoteNamespaceStatus {
  std::string remote_namespace;
  MappingPhase phase = MappingPhase::Accepted;

  friend bool operator==(const RemoteNamespaceStatus&, const RemoteNamespaceStatus&) = default;
};

struct NamespaceMapStatus {
  std::map<std::string, RemoteNamespaceStatus> current_mapping;  // keyed by local namespace

  friend bool operator==(const NamespaceMapStatus&, const NamespaceMapStatus&) = default;
};

void to_json(nlohmann::json& j, const NamespaceMapSpec& spec);
void from_json(const nlohmann::json& j, NamespaceMapSpec& spec);  // throws; use decode()
void to_json(nlohmann::json& j, const RemoteNamespaceStatus& s);
void from_json(const nlohmann::json& j, RemoteNamespaceStatus& s);
void to_json(nlohmann::json& j, const NamespaceMapStatus& status);
void from_json(const nlohmann::json& j, NamespaceMapStatus& status);

}  // namespace fed::fedapi
