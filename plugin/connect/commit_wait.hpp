#pragma once
// A command that changed a replicated object (join, unjoin, peer, host add/remove) reports
// success only once the leader has committed that change to the federation etcd, i.e. on a
// majority of the host clusters (docs/HA-STATE.md "Confirming a command"): it waits until the
// leader's record (ConfigMap fed-state-committed on its host) covers the object as the command
// left it.

#include <chrono>
#include <string>

#include "plugin/cli/output.hpp"
#include "plugin/connect/host_connection.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// How long a command waits for the commit before it says it is not confirmed.
inline constexpr std::chrono::seconds kCommitTimeout{30};

// Waits until the object at `ref` on `host` (the leader's host), as it is now — or its
// absence, when it is gone or being deleted — is committed. Returns at once on a host without
// leader election (no fed-leader, or epoch 0: one manager, nothing replicated); fed-leader is
// read only when `host.replicated` is not known yet.
// Unavailable naming the host when the record does not cover it within `timeout` (the leader
// changed, or lost its quorum): the write may be lost, so the command must be run again.
Status wait_committed(const HostConnection& host, const kube::ResourceRef& ref, Output& out,
                      std::chrono::milliseconds timeout = kCommitTimeout);

}  // namespace fed::plugin
