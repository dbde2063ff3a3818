#pragma once
// kubectl fed etcd status: the etcd proxy's view of its etcd cluster, read from the proxy's
// local status socket (root only; agent/etcdproxy/status_socket.hpp): members with health and
// status round trip, leader and raft term, the routing policy, the classifier's last period,
// the last leader move and per-member connection and pick counters. docs/ETCD.md.

#include <string>

#include "plugin/cli/command.hpp"

namespace fed::plugin {

struct EtcdOptions {
  std::string action;  // "status", the only one so far
  std::string socket;  // the proxy's --status-socket
};

// Prints the status document of the proxy listening on options.socket, in the -o format.
// Unavailable (exit 3) when no proxy listens there, Permission (exit 4) when not root.
Status run_etcd_status(const GlobalOptions& global, const EtcdOptions& options, Output& out);

// The command table entry.
extern const Command kEtcdCommand;

}  // namespace fed::plugin
