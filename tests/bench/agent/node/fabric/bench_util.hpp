#pragma once
// Helpers of the datapath benchmarks: throwaway namespaces, the benchmark node state, rendering
// the agent's rules as iptables commands (for the restore and per-rule baselines), percentiles.

#include <chrono>
#include <string>
#include <vector>

#include "agent/node/fabric/node_state.hpp"
#include "agent/node/os/nat_table.hpp"

namespace fed::fabric::bench {

// A network namespace for one measurement, deleted at scope exit.
class TempNs final {
 public:
  TempNs();
  ~TempNs();
  TempNs(const TempNs&) = delete;
  TempNs& operator=(const TempNs&) = delete;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// A gateway with one peer "b" and `mappings` ExternalCIDR mappings (from 10.128.0.1 on).
NodeNetworkState gateway_state(int mappings);

// The --state-file document of `state`.
std::string state_yaml(const NodeNetworkState& state);

// "-s 10.1.0.0/24 -d ... -j DNAT --to-destination ..." for `rule` (iptables syntax).
std::string iptables_args(const os::NatRule& rule);

// An iptables-restore --noflush document creating `chains` and their rules.
std::string restore_document(
    const std::vector<std::pair<std::string, std::vector<os::NatRule>>>& chains,
    const std::vector<std::pair<std::string, os::NatRule>>& hooks);

// Runs argv[0] with `argv` (no shell) in the calling thread's namespace, stdin from `input`
// (a path, or empty); returns the exit code.
int run_here(const std::vector<std::string>& argv, const std::string& input = "");

double ms(std::chrono::steady_clock::duration d);

}  // namespace fed::fabric::bench
