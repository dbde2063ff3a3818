#pragma once
// `fed-agent probe`: the two ends of `kubectl fed join --wait`'s data-path proof. The listener
// answers every TCP connection with one line naming the source address it saw, so the dialler
// (a pod in the other cluster) learns both that the path works and how the NAT rewrote it.

#include <chrono>
#include <cstdint>
#include <string>

#include "shared/result/result.hpp"

namespace fed::probe {

// The listener's answer line is fedapi/probe_answer.hpp's (the plugin reads it back).

// Serves on 0.0.0.0:`port` until `deadline` passes or the process is signalled.
Status listen(std::uint16_t port, const std::string& id, std::chrono::milliseconds deadline);

// Dials `address`:`port`, retrying until `timeout` (routes and rules may still converge), and
// returns the listener's answer line. Unavailable with the last error when it never answered.
Result<std::string> dial(const std::string& address, std::uint16_t port,
                         std::chrono::milliseconds timeout);

}  // namespace fed::probe
