#include "shared/fedapi/federated_cluster.hpp"

#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {
namespace {

// An int-or-string quantity at `key` as text ("4", "8Gi"); "" when absent.
std::string read_quantity(const nlohmann::json& j, std::string_view key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (it->is_number_integer()) return std::to_string(it->get<std::int64_t>());
  return read_string(j, key);
}

}  // namespace

void to_json(nlohmann::json& j, const FederatedClusterSpec& spec) {
  j = nlohmann::json::object();
  j["clusterID"] = spec.cluster_id;
  write_string(j, "role", spec.role);
  j["apiEndpoint"] = spec.api_endpoint;
  j["credentialSecretRef"] = {{"name", spec.credential_secret_name},
                              {"namespace", spec.credential_secret_namespace}};
  if (!spec.cluster_labels.empty()) j["clusterLabels"] = spec.cluster_labels;
  nlohmann::json offered = nlohmann::json::object();
  write_string(offered, "cpu", spec.offered_cpu);
  write_string(offered, "memory", spec.offered_memory);
  if (!offered.empty()) j["offered"] = offered;
  // Written only when not the default, so objects from before the field compare equal.
  if (spec.tunnel_backend != TunnelBackend::WireGuard) {
    j["tunnelBackend"] = std::string(to_string(spec.tunnel_backend));
  }
}

void from_json(const nlohmann::json& j, FederatedClusterSpec& spec) {
  spec.cluster_id = read_string(j, "clusterID", Presence::Required);
  spec.role = read_string(j, "role");
  spec.api_endpoint = read_string(j, "apiEndpoint", Presence::Required);
  const auto secret = within("credentialSecretRef", [&] {
    const auto ref = read_object(j, "credentialSecretRef");
    return std::pair{read_string(ref, "name", Presence::Required),
                     read_string(ref, "namespace", Presence::Required)};
  });
  spec.credential_secret_name = secret.first;
  spec.credential_secret_namespace = secret.second;
  spec.cluster_labels = read_string_map(j, "clusterLabels");
  const auto offered = read_object(j, "offered");
  spec.offered_cpu = within("offered", [&] { return read_quantity(offered, "cpu"); });
  spec.offered_memory = within("offered", [&] { return read_quantity(offered, "memory"); });
  spec.tunnel_backend = read_tunnel_backend(j, "tunnelBackend");
}

void to_json(nlohmann::json& j, const FederatedClusterStatus& status) {
  j = nlohmann::json::object();
  write_conditions(j, status.conditions);
  write_int(j, "observedGeneration", status.observed_generation);
}

void from_json(const nlohmann::json& j, FederatedClusterStatus& status) {
  status.conditions = read_conditions(j);
  status.observed_generation = read_int(j, "observedGeneration");
}

}  // namespace fed::fedapi
