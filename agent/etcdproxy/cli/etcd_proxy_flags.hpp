#pragma once
// The etcd proxy's flags, shared by `fed-agent etcd-proxy` and the fed-etcd-proxy test binary so
// both read the same command line.

#include <string>

#include <CLI/CLI.hpp>

#include "agent/etcdproxy/options.hpp"
#include "shared/etcd/proxy_status.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy {

struct EtcdProxyFlags {
  EtcdProxyOptions options;
  std::string members;  // comma-separated
  std::string policy = "leader";
  std::string status_socket{etcd::kDefaultProxyStatusSocket};
  int poll_ms = 500, status_timeout_ms = 800, dial_ms = 1000, quiet_ms = 5, deadline_ms = 10000;
  int classify_ms = 1000;
};

// Adds the flags to `app`, writing into `flags`.
void add_etcd_proxy_flags(CLI::App& app, EtcdProxyFlags& flags);

// The options the flags say, checked (validate()). Invalid names the flag.
Result<EtcdProxyOptions> to_options(const EtcdProxyFlags& flags);

}  // namespace fed::etcdproxy
