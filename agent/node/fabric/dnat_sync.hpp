#pragma once
// DnatSync: keeps the agent's nftables table (os/dnat_table.hpp) at the desired state, paying
// for a kernel read only when something else changed nftables. Reading the table back costs time
// in proportion to its elements (about 0.2 s at 30 000 through libnftables), so a pass plans
// against what the agent last committed — the table is the agent's alone — and reads the kernel
// on its first pass, after a failed transaction, and once per `verify_period` (the resync
// period, so a hand edit is undone as promptly as one to the nat chains) if the ruleset's
// generation moved since the agent's own last commit: a hand edit moves it, and a generation
// read is one small netlink message. A pass that adds one mapping thus costs one element in one
// transaction, whatever the number of mappings.

#include <chrono>
#include <optional>

#include "agent/node/os/dnat_table.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric {

class DnatSync final {
 public:
  DnatSync(os::DnatTable& table, std::chrono::milliseconds verify_period);

  // Brings the table to `desired` in one transaction; returns what it changed.
  Result<os::DnatChanges> converge(os::DnatState desired);

 private:
  os::DnatTable& table_;
  std::chrono::milliseconds verify_period_;
  std::optional<os::DnatState> known_;       // the table as last read or committed
  std::optional<std::uint32_t> generation_;  // the ruleset's generation right after that
  std::chrono::steady_clock::time_point checked_at_;
};

}  // namespace fed::fabric
