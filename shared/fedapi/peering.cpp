#include "shared/fedapi/peering.hpp"

#include <array>
#include <utility>

#include "shared/fedapi/enum_table.hpp"
#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {
namespace {

constexpr std::array<std::pair<TunnelBackend, std::string_view>, 2> kBackends{{
    {TunnelBackend::WireGuard, "wireguard"},
    {TunnelBackend::Vxlan, "vxlan"},
}};
constexpr std::array<std::pair<TunnelState, std::string_view>, 5> kStates{{
    {TunnelState::Pending, "Pending"},
    {TunnelState::Connecting, "Connecting"},
    {TunnelState::Lost, "Lost"},
    {TunnelState::Connected, "Connected"},
    {TunnelState::Error, "Error"},
}};

}  // namespace

std::string_view to_string(TunnelBackend backend) {
  return enum_name(kBackends, backend);
}

std::optional<TunnelBackend> tunnel_backend_named(std::string_view text) {
  for (const auto& [value, name] : kBackends) {
    if (name == text) return value;
  }
  return std::nullopt;
}

TunnelBackend read_tunnel_backend(const nlohmann::json& j, std::string_view key) {
  const auto text = read_string(j, key);
  return text.empty() ? TunnelBackend::WireGuard : enum_from_name(kBackends, key, text);
}

std::string_view to_string(TunnelState state) {
  return enum_name(kStates, state);
}

void to_json(nlohmann::json& j, const PeeringSpec& spec) {
  j = nlohmann::json::object();
  j["localClusterID"] = spec.local_cluster_id;
  j["peerClusterID"] = spec.peer_cluster_id;
  j["peerPodCIDR"] = spec.peer_pod_cidr;
  j["peerExternalCIDR"] = spec.peer_external_cidr;
  j["backend"] = std::string(to_string(spec.backend));
  write_string(j, "gatewayEndpoint", spec.gateway_endpoint);
  write_string(j, "publicKey", spec.public_key);
  write_string(j, "localTunnelAddress", spec.local_tunnel_address);
  write_string(j, "peerTunnelAddress", spec.peer_tunnel_address);
}

void from_json(const nlohmann::json& j, PeeringSpec& spec) {
  spec.local_cluster_id = read_string(j, "localClusterID", Presence::Required);
  spec.peer_cluster_id = read_string(j, "peerClusterID", Presence::Required);
  spec.peer_pod_cidr = read_string(j, "peerPodCIDR", Presence::Required);
  spec.peer_external_cidr = read_string(j, "peerExternalCIDR", Presence::Required);
  spec.backend = read_tunnel_backend(j, "backend");
  spec.gateway_endpoint = read_string(j, "gatewayEndpoint");
  spec.public_key = read_string(j, "publicKey");
  spec.local_tunnel_address = read_string(j, "localTunnelAddress");
  spec.peer_tunnel_address = read_string(j, "peerTunnelAddress");
}

void to_json(nlohmann::json& j, const TunnelStatus& tunnel) {
  j = nlohmann::json::object();
  j["state"] = std::string(to_string(tunnel.state));
  write_string(j, "message", tunnel.message);
}

void from_json(const nlohmann::json& j, TunnelStatus& tunnel) {
  auto state = read_string(j, "state");
  tunnel.state = state.empty() ? TunnelState::Pending : enum_from_name(kStates, "state", state);
  tunnel.message = read_string(j, "message");
}

void to_json(nlohmann::json& j, const PeeringStatus& status) {
  j = nlohmann::json::object();
  write_string(j, "localPodCIDR", status.local_pod_cidr);
  write_string(j, "localExternalCIDR", status.local_external_cidr);
  write_string(j, "remotePodCIDR", status.remote_pod_cidr);
  write_string(j, "remoteExternalCIDR", status.remote_external_cidr);
  write_string(j, "localRemappedPodCIDR", status.local_remapped_pod_cidr);
  write_string(j, "localRemappedExternalCIDR", status.local_remapped_external_cidr);
  write_string(j, "gatewayNode", status.gateway_node);
  j["tunnel"] = status.tunnel;
  write_conditions(j, status.conditions);
  write_int(j, "observedGeneration", status.observed_generation);
}

void from_json(const nlohmann::json& j, PeeringStatus& status) {
  status.local_pod_cidr = read_string(j, "localPodCIDR");
  status.local_external_cidr = read_string(j, "localExternalCIDR");
  status.remote_pod_cidr = read_string(j, "remotePodCIDR");
  status.remote_external_cidr = read_string(j, "remoteExternalCIDR");
  status.local_remapped_pod_cidr = read_string(j, "localRemappedPodCIDR");
  status.local_remapped_external_cidr = read_string(j, "localRemappedExternalCIDR");
  status.gateway_node = read_string(j, "gatewayNode");
  status.tunnel = within("tunnel", [&] { return read_object(j, "tunnel").get<TunnelStatus>(); });
  status.conditions = read_conditions(j);
  status.observed_generation = read_int(j, "observedGeneration");
}

TunnelStatus current_tunnel_status(const nlohmann::json& peering) {
  const auto status = peering.value("status", nlohmann::json::object());
  const auto tunnel = status.value("tunnel", nlohmann::json::object());
  TunnelStatus out;
  try {
    out = tunnel.get<TunnelStatus>();
  } catch (const std::exception&) {
    out.state = TunnelState::Error;  // unreadable: differs from anything we report
    out.message = "(unreadable)";
  }
  return out;
}

}  // namespace fed::fedapi
