#pragma once
// IptcNatTable: NatTable on the legacy IPv4 nat table through libiptc, in the network namespace
// of the calling thread. Each transaction holds /run/xtables.lock (as iptables-legacy does),
// takes one snapshot and commits once.

#include <chrono>
#include <string>

#include "agent/node/os/nat_table.hpp"

namespace fed::os {

class IptcNatTable final : public NatTable {
 public:
  // `lock_path` is the xtables lock shared with the iptables commands; empty disables locking.
  explicit IptcNatTable(std::string lock_path = "/run/xtables.lock",
                        std::chrono::milliseconds lock_timeout = std::chrono::seconds(5));

  Result<NatSnapshot> read() override;
  Result<NatChanges> transact(const NatPlanner& plan) override;

 private:
  std::string lock_path_;
  std::chrono::milliseconds lock_timeout_;
};

}  // namespace fed::os
