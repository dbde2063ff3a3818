#pragma once
// DnatTable: the gateway's endpoint mappings in an nftables table of the agent's own, "ip fed".
// Per peer with mappings it holds one map (an address of our ExternalCIDR as that peer sees it
// -> the endpoint behind it) and one rule in the table's nat prerouting chain that sends the
// peer's traffic to those addresses through the map. Adding or removing a mapping is one map
// element in one nftables transaction: the kernel's work does not grow with the number of
// mappings, where a legacy xtables table is copied in and replaced whole on every change
// (docs/DATAPATH.md "Endpoint mappings at scale").
//
// The agent owns the whole table; nothing else writes it, so what it committed is what is there
// until someone edits it by hand (undone at the next resync, fabric/dnat_sync.hpp).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/node/os/dnat_entries.hpp"
#include "agent/node/os/net.hpp"
#include "shared/result/result.hpp"

namespace fed::os {

inline constexpr std::string_view kDnatTable = "fed";
inline constexpr std::string_view kDnatChain = "prerouting";
// Before iptables' nat PREROUTING (priority dstnat, -100): a mapped connection is translated
// here and the legacy nat chains never see it.
inline constexpr int kDnatChainPriority = -101;

// The chain's rule for one map: `ip saddr <src> ip daddr <dst> dnat to ip daddr map @<map>`.
// A rule the agent does not recognise reads back with an empty `map`.
struct DnatRule {
  std::string map;
  Cidr src;  // the peer's PodCIDR as we see it
  Cidr dst;  // our ExternalCIDR as the peer sees it
  friend bool operator==(const DnatRule&, const DnatRule&) = default;
};

// The table as the agent wants it or as it was read.
struct DnatState {
  bool table = false;     // the table exists
  bool chain_ok = false;  // ... with the prerouting chain of the right type, hook and priority
  std::vector<DnatRule> rules;              // the chain's rules in order
  std::map<std::string, DnatEntries> maps;  // every map of the table (ipv4_addr : ipv4_addr)
  bool foreign = false;  // the table holds something else (other sets, chains, map types)
  friend bool operator==(const DnatState&, const DnatState&) = default;
};

// One transaction, applied in this order: delete the table, add table and chain, flush the
// chain, delete maps, add maps, delete then add elements, add rules.
struct DnatChanges {
  bool delete_table = false;
  bool ensure_table = false;
  bool rewrite_rules = false;  // flush the chain and add `rules`
  std::vector<std::string> delete_maps;
  std::vector<std::string> create_maps;
  struct Elements {
    std::string map;
    std::vector<std::uint32_t> remove;                         // external addresses
    std::vector<std::pair<std::uint32_t, std::uint32_t>> add;  // external -> endpoint
  };
  std::vector<Elements> elements;
  std::vector<DnatRule> rules;

  bool empty() const {
    return !delete_table && !ensure_table && !rewrite_rules && delete_maps.empty() &&
           create_maps.empty() && elements.empty();
  }
  std::size_t added() const {
    std::size_t n = 0;
    for (const auto& e : elements) n += e.add.size();
    return n;
  }
  std::size_t removed() const {
    std::size_t n = 0;
    for (const auto& e : elements) n += e.remove.size();
    return n;
  }
};

class DnatTable {
 public:
  virtual ~DnatTable() = default;

  // The whole table, every map's elements included; `table` false when there is none.
  virtual Result<DnatState> read() = 0;
  // Applies `changes` in one atomic transaction: all or nothing.
  virtual Status apply(const DnatChanges& changes) = 0;
  // The nftables ruleset's generation in this network namespace: the kernel bumps it on every
  // committed transaction, anyone's, so an unchanged generation means an unchanged table.
  virtual Result<std::uint32_t> generation() = 0;
};

}  // namespace fed::os
