#pragma once
// `fed-agent probe`: the two ends of `kubectl fed join --wait`'s data-path proof. The listener
// answers a TCP connection with one line naming the source address it saw, so the dialler (a
// pod in the other cluster) learns both that the path works and how the NAT rewrote it. With a
// token (the plugin always gives one, in $FED_PROBE_TOKEN), it answers only a connection whose
// first line is that token: nothing else that reaches the pod learns anything.

#include <chrono>
#include <cstdint>
#include <string>

#include "shared/result/result.hpp"

namespace fed::probe {

// The listener's answer line is fedapi/probe_answer.hpp's (the plugin reads it back).

// Serves on 0.0.0.0:`port` until `deadline` passes or the process is signalled. With a
// `token`, a connection must send it as its first line within 2 s to be answered; any other is
// closed unanswered (and logged as refused).
Status listen(std::uint16_t port, const std::string& id, std::chrono::milliseconds deadline,
              const std::string& token = "");

// Dials `address`:`port`, sends `token` as the first line when given, retrying until `timeout`
// (routes and rules may still converge), and returns the listener's answer line. Unavailable
// with the last error when it never answered.
Result<std::string> dial(const std::string& address, std::uint16_t port,
                         std::chrono::milliseconds timeout, const std::string& token = "");

// Serves nothing until `deadline` passes or the process is signalled: a pod that only needs to
// run and get an address (reconfigure's CNI check).
Status idle(std::chrono::milliseconds deadline);

}  // namespace fed::probe
