#include "agent/manager/membership/peering_builder.hpp"

#include "agent/manager/ipam/api_convert.hpp"
#include "shared/fedapi/group.hpp"

namespace fed::federation {

bool networks_complete(const PeeringSide& side) {
  return side.peer.subnets.has_value() && side.peer.local.has_value();
}

nlohmann::json peering_object(const PeeringSide& side) {
  fedapi::PeeringSpec spec;
  spec.local_cluster_id = side.local_id;
  spec.peer_cluster_id = side.peer_id;
  if (side.peer.subnets) {
    spec.peer_pod_cidr = side.peer.subnets->pod_cidr.str();
    spec.peer_external_cidr = side.peer.subnets->external_cidr.str();
  }
  spec.backend = side.backend;
  if (side.peer_gateway) {
    spec.gateway_endpoint = side.peer_gateway->endpoint;
    if (side.backend == fedapi::TunnelBackend::WireGuard) {
      spec.public_key = side.peer_gateway->public_key;
    }
  }
  spec.local_tunnel_address = side.local_tunnel_address;
  spec.peer_tunnel_address = side.peer_tunnel_address;
  return nlohmann::json{{"apiVersion", std::string(fedapi::kApiVersion)},
                        {"kind", std::string(fedapi::kPeering.kind)},
                        {"metadata",
                         {{"name", side.peer_id},
                          {"labels",
                           {{"app.kubernetes.io/part-of", "kubectl-fed"},
                            {std::string(fedapi::kClusterIdLabel), side.peer_id}}}}},
                        {"spec", spec}};
}

fedapi::PeeringStatus peering_network_status(const PeeringSide& side) {
  fedapi::PeeringStatus status;
  fabric::ipam::set_network_status(side.local, side.peer, status);
  if (side.local_gateway) status.gateway_node = side.local_gateway->node;
  return status;
}

}  // namespace fed::federation
