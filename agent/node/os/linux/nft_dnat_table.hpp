#pragma once
// NftDnatTable: DnatTable through libnftables, in the network namespace of the calling thread.
// Writes are one nftables script per transaction (atomic in the kernel); reads list the table
// as JSON. A read costs time in proportion to the elements (about 0.2 s at 30 000), a write in
// proportion to the elements it changes.

#include "agent/node/os/dnat_table.hpp"

namespace fed::os {

class NftDnatTable final : public DnatTable {
 public:
  Result<DnatState> read() override;
  Status apply(const DnatChanges& changes) override;
  // NFT_MSG_GETGEN over a netfilter netlink socket: one small message whatever the table holds.
  Result<std::uint32_t> generation() override;
};

// The nftables script `changes` stand for; exposed for the unit tests.
std::string dnat_script(const DnatChanges& changes);

// Parses `nft -j list table ip fed` output; exposed for the unit tests.
Result<DnatState> parse_dnat_listing(std::string_view json);

}  // namespace fed::os
