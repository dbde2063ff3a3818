#pragma once
// NatTable: the agent's part of the IPv4 nat table. The agent owns every chain whose name starts
// with "FED-" and, in the built-in chains, only the rules that jump to one of those chains.
// Changes happen in transactions: read, plan, apply and commit once, under the xtables lock.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/node/os/net.hpp"
#include "shared/result/result.hpp"

namespace fed::os {

// Prefix of every chain the agent owns.
inline constexpr std::string_view kOwnedChainPrefix = "FED-";

enum class NatAction {
  Jump,    // to the chain `jump`
  Dnat,    // destination to `to_ip`
  Snat,    // source to `to_ip`
  Netmap,  // 1:1 prefix map to `to_net` (source in POSTROUTING, destination in PREROUTING)
  Return,
  Other,  // a rule the agent did not write (other matches or targets); `other` describes it
};

enum class Negation { No, Yes };

// One rule in the domain's terms.
struct NatRule {
  std::optional<Cidr> src;
  Negation src_negated = Negation::No;
  std::optional<Cidr> dst;
  NatAction action = NatAction::Return;
  std::string jump;  // chain for Jump
  Ipv4 to_ip;        // Dnat, Snat
  Cidr to_net;       // Netmap
  std::string comment;
  std::string other;  // Other: what the rule has that the agent does not model

  friend bool operator==(const NatRule&, const NatRule&) = default;
};

// The rules of a built-in chain that belong to the agent, with their 0-based positions.
struct HookRules {
  std::size_t total = 0;  // rules in the chain, ours and others'
  std::vector<std::pair<std::size_t, NatRule>> owned;
};

// The agent's view of the nat table.
struct NatSnapshot {
  std::map<std::string, std::vector<NatRule>> chains;  // every FED- chain, rules in order
  std::map<std::string, HookRules> hooks;              // PREROUTING, INPUT, OUTPUT, POSTROUTING
};

// Edits of one chain, against the snapshot the plan was made from.
struct ChainEdit {
  std::string chain;
  std::vector<std::size_t> delete_positions;  // 0-based, any order
  // After the deletions, in this order: each rule goes to its 0-based position in the chain
  // as it is at that moment (positions increase, so the chain ends up in the planned order).
  std::vector<std::pair<std::size_t, NatRule>> insert;
};

// Everything one transaction changes, applied in this order: create chains, edit chains,
// flush and delete chains (nothing may jump to them any more by then), commit once.
struct NatChanges {
  std::vector<std::string> create_chains;
  std::vector<ChainEdit> edits;
  std::vector<std::string> delete_chains;

  bool empty() const { return create_chains.empty() && edits.empty() && delete_chains.empty(); }
};

// Given the current snapshot, returns the changes to make (or an error to abort unchanged).
using NatPlanner = std::function<Result<NatChanges>(const NatSnapshot&)>;

class NatTable {
 public:
  virtual ~NatTable() = default;

  // The agent's chains and jumps as they are now.
  virtual Result<NatSnapshot> read() = 0;
  // Reads, calls `plan` and applies its changes in one commit; nothing is committed when the
  // plan fails or is empty. Returns the changes applied.
  virtual Result<NatChanges> transact(const NatPlanner& plan) = 0;
};

}  // namespace fed::os
