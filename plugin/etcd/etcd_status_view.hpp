#pragma once
// The human form of `kubectl fed etcd status` (-o table): a few "Key: value" lines about the
// leader, the policy and the classifier, then one row per member. -o json|yaml print
// etcd::to_json() of the same document instead. Pure, for unit tests.

#include <chrono>
#include <string>

#include "plugin/cli/output.hpp"
#include "shared/etcd/proxy_status.hpp"

namespace fed::plugin {

// "12s", "4m", "3h", "2d" since `then`; "0s" for a time in the future (clock skew).
std::string age(std::chrono::system_clock::time_point then,
                std::chrono::system_clock::time_point now);

// The member table: NAME ENDPOINT ID HEALTHY LEADER TERM RTT CONNECTIONS ACTIVE PICKS DIAL-FAILURES
// DRAINED; PICKS is "leader/round-robin/fallback".
Table etcd_member_table(const etcd::ProxyStatus& status);

// The summary lines and the member table, as printed.
std::string render_etcd_status(const etcd::ProxyStatus& status,
                               std::chrono::system_clock::time_point now);

}  // namespace fed::plugin
