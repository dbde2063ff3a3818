#pragma once
// `host remove` of the leader's own host (docs/HA.md): the leadership moves to another host
// first. The leaving host's manager Deployment is scaled to 0: a leader stopped with SIGTERM
// stops its controllers and resigns (deletes its record), and a standby of another host takes
// over within one retry period, without waiting for the lease. The removal then goes through
// the new leader's host.

#include <chrono>
#include <string>

#include "plugin/cli/global_options.hpp"
#include "plugin/cli/output.hpp"
#include "plugin/connect/leader_connection.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// Hands the leadership from `leaving` (the host of --context, which leads) over to one of
// `others` (the federation's other hosts) and returns the new leader's host, reached through
// the kubeconfig. Before anything is written, a context must reach one of `others` (else
// NotFound naming the one to add). When no leader appears elsewhere within `timeout`, the
// managers are scaled back and Unavailable says so.
Result<ReachedHost> hand_leadership_over(const GlobalOptions& global, const HostConnection& leaving,
                                         const std::vector<std::string>& others,
                                         std::chrono::milliseconds timeout, Output& out);

}  // namespace fed::plugin
