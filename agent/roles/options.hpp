#pragma once
// fed-agent's settings, common to every role: one plain struct filled once by main's parser
// and passed by const reference (no global flags).

#include <string>

#include "shared/log/log.hpp"
#include "shared/result/result.hpp"

namespace fed::agent {

// Where /healthz and /readyz are served unless --bind-address says otherwise. All
// interfaces, not loopback: kubelet probes the pod IP (the node IP for the host-network
// DaemonSet). They reveal nothing but whether the role runs. The port is unusual on purpose,
// so that a host-network agent does not collide with common node services. /metrics has a
// listener of its own (metrics_server.hpp).
inline constexpr const char* kDefaultBindAddress = "0.0.0.0:9440";

struct AgentOptions {
  std::string bind_address = kDefaultBindAddress;  // host:port for health
  std::string metrics_bind_address;  // host:port for /metrics; empty: the role's default
  log::Format log_format = log::Format::Text;
  int verbosity = 0;       // klog-style -v level, see log_verbosity()
  std::string kubeconfig;  // empty: in-cluster configuration
  std::string context;     // empty: the kubeconfig's current context
};

// Maps the klog-style level (-v=N, as in Kubernetes manifests) to fed::log's:
// 0 -> info, 1..4 -> debug, 5 and above -> trace.
int log_verbosity(int klog_level);

// Checks values the parser cannot: the bind address syntax. Invalid names the flag.
Status validate(const AgentOptions& options);

}  // namespace fed::agent
