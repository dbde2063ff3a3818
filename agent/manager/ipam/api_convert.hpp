#pragma once
// The IPAM's values as API objects (shared/fedapi): the persisted IpamState spec and its JSON
// (reading checks the syntax of every field and names it; Ipam::restore then checks the state
// as a whole), a peer's NatMapping spec, and the network fields of its Peering status.

#include <map>

#include <nlohmann/json.hpp>

#include "agent/manager/ipam/ipam_types.hpp"
#include "shared/fedapi/ipam_state.hpp"
#include "shared/fedapi/nat_mapping.hpp"
#include "shared/fedapi/peering.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric::ipam {

fedapi::IpamStateSpec to_spec(const IpamState& state);
Result<IpamState> from_spec(const fedapi::IpamStateSpec& spec);

// The endpoints of one IpamBlock spec, and back. Reading checks each field's syntax and that
// every address is in the block.
fedapi::IpamBlockSpec to_block_spec(const net::Cidr& block,
                                    const std::map<net::Ipv4, EndpointState>& endpoints);
Result<std::map<net::Ipv4, EndpointState>> from_block_spec(const fedapi::IpamBlockSpec& spec);

// The IpamState spec as JSON, and back.
nlohmann::json state_to_json(const IpamState& state);
Result<IpamState> state_from_json(const nlohmann::json& spec);

// The NatMapping spec of one peer.
fedapi::NatMappingSpec to_spec(const NatMappingSet& set);

// Sets the network fields of a peer's Peering status: our ranges, the peer's as used here and
// ours as the peer sees them ("None" when not remapped, left empty while unknown).
void set_network_status(const LocalNetworks& local, const ClusterState& peer,
                        fedapi::PeeringStatus& status);

}  // namespace fed::fabric::ipam
