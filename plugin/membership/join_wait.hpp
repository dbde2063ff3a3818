#pragma once
// join --wait: polls the member's FederatedCluster until its Ready condition is True, the
// manager reports it cannot reach or use the member, or the timeout passes; progress lines on
// stderr (a terminal only); on timeout an Unavailable error names the condition that is not True
// and its message.

#include <chrono>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin/cli/global_options.hpp"
#include "plugin/cli/output.hpp"
#include "plugin/connect/host_connection.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// The FederatedCluster once Ready, read on the leader's host. Gives up at once (Unavailable,
// naming the manager's reason and what to check) when the manager reports for
// `written_generation` — the FederatedCluster's generation this join wrote, 0 when it wrote
// nothing — that it cannot use the member's API server (join_blocker). When the federation's
// leader moves meanwhile (its host's fed-leader names a newer epoch), `leader` becomes the new
// leader's host, which restores the member from the federation etcd (join waited for its
// commit) and reports on it there; one line on stderr says so.
Result<nlohmann::json> wait_until_ready(const GlobalOptions& global, HostConnection& leader,
                                        const std::string& member,
                                        std::chrono::milliseconds timeout, Output& out,
                                        std::int64_t written_generation = 0);

}  // namespace fed::plugin
