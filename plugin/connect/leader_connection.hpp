#pragma once
// With several host clusters (docs/HA.md) the federation's writes go to the leader's host: a
// new leader restores the federation from the federation etcd, into which only the leader
// copies, and a follower refuses them (manifests/manager/leader-writes-policy.yaml). So
// commands that change the federation (join, unjoin, peer, host add/remove) follow the leader
// from whichever host --context names, to the kubeconfig context that reaches the leader's
// host; commands that act on one host's own namespaces (offload, replicate) run only on the
// leader's host, since only the leading manager serves them.

#include <ostream>
#include <span>
#include <string>

#include "plugin/cli/global_options.hpp"
#include "plugin/connect/host_connection.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// What a host's fed-leader says of the federation's leader.
struct LeaderSeen {
  std::string host;  // the leader's host
  bool replicated;   // the managers elect a leader (an epoch): what it leads is replicated
};

// The leader's host as the host `client` (id `here`) knows it from its fed-leader: `here`
// when it leads, when there is no fed-leader (the manager has not published yet) or when it
// names no role (one manager, no election). Unavailable when it says nobody leads (no quorum).
Result<LeaderSeen> leader_host_seen_from(kube::DynamicClient& client, const std::string& here);

// A host and the kubeconfig context that reached it.
struct ReachedHost {
  HostConnection host;
  std::string context;
};

// The first kubeconfig context (the one named like `host` first, then the others but
// --context) that reaches host cluster `host`, each tried for at most 5 s. NotFound naming the
// context to add when none does.
Result<ReachedHost> connect_host_named(const GlobalOptions& global, const std::string& host);

// The host of --context when it leads; else the host of the first kubeconfig context that
// reaches the leader's host (the context named like it first), said in one line on `notes`.
// NotFound naming the context to add when none does; connect_host()'s errors otherwise.
Result<HostConnection> connect_leader_host(const GlobalOptions& global, std::ostream& notes);

// The host of --context, which must lead: Invalid naming the leader's host ("its namespaces
// are served only while it leads") when it follows.
Result<HostConnection> connect_leading_host(const GlobalOptions& global);

// For a command waiting on what `host` (reached by connect_leading_host) serves: Unavailable
// naming the new leader's host once its fed-leader names another host — what the command
// waits for is not served there any more, so waiting on is pointless. OK while it still leads,
// while nobody leads (it may win again) and when its fed-leader cannot be read.
Status check_still_leading(const HostConnection& host);

// For a command waiting on what the leading manager reports on its own host (a
// FederationHost's status): once another host leads, `host` becomes that host (reached as
// connect_host_named() does) and one line on `notes` says so. Who leads is the newest epoch
// named by the fed-leader of `host` or of a `witness` (another host of the federation): a host
// whose managers are gone keeps publishing nothing, so its own fed-leader can stay stale.
// Unchanged while nobody names a newer leader; connect_host_named()'s error when the new
// leader's host cannot be reached.
Status follow_leader(const GlobalOptions& global, HostConnection& host, std::ostream& notes,
                     std::span<kube::DynamicClient* const> witnesses = {});

}  // namespace fed::plugin
