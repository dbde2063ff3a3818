#pragma once
// The blocks the ExternalCIDR's endpoint mappings are persisted in (docs/DATAPATH.md "Endpoint
// mappings at scale"): every address belongs to the block of `length` bits that contains it; the
// manager keeps one IpamBlock per block and one NatMapping per peer and block, so a mapping's
// write costs one block. Names of those objects, and back.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "shared/net/net_types.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric::ipam {

// 64 addresses: an IpamBlock of about 5 kB and a NatMapping of about 2.5 kB when full. Each
// mapping rewrites its block's two objects, and the API server's write costs with their size:
// 4-5 ms up to 60 entries, 9-10 ms at 250 (docs/BENCHMARKS.md), so /24 blocks made a mapping
// 15-20 ms slower once its block was nearly full; /26 keeps every write near the floor.
inline constexpr std::uint8_t kDefaultBlockLength = 26;

// The prefix length blocks get when `wanted` is asked for within `external_cidr`: never shorter
// than the ExternalCIDR itself (a smaller ExternalCIDR is one block).
std::uint8_t block_length(std::uint8_t wanted, const net::Cidr& external_cidr);

// "10-0-2-0-24" for 10.0.2.0/24: a DNS label, so it can end an object name.
std::string block_name(const net::Cidr& block);
// The block of a block_name(); Invalid for any other text.
Result<net::Cidr> block_from_name(std::string_view name);

// The NatMapping of `peer`'s mappings in `block`: "<peer>.<block_name>". Cluster ids are DNS
// labels, so the dot separates them unambiguously.
std::string nat_mapping_name(std::string_view peer, const net::Cidr& block);

// What a NatMapping's name says: its peer and block; no block for the one object per peer that
// releases before the blocks wrote (named after the peer).
struct NatMappingName {
  std::string peer;
  std::optional<net::Cidr> block;
};
Result<NatMappingName> parse_nat_mapping_name(std::string_view name);

}  // namespace fed::fabric::ipam
