#pragma once
// The --wait loop the commands share (join, peer, offload, unoffload): ask, report progress on
// change, give up at the deadline saying where things stood.

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "plugin/cli/output.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// nullopt when done; otherwise why not yet. An error ends the wait with that error.
using PollResult = Result<std::optional<std::string>>;
using PollCheck = std::function<PollResult()>;
inline PollResult poll_done() {
  return std::optional<std::string>();
}
inline PollResult still_waiting(std::string why) {
  return std::optional<std::string>(std::move(why));
}

// Calls `check` every `interval` until it is done or `timeout` passes. Each new reason is
// printed as progress "waiting for <subject>: <reason>"; on timeout, Unavailable "<headline>
// after <timeout>: <last reason>".
Status poll_until(const PollCheck& check, std::chrono::milliseconds timeout,
                  const std::string& subject, const std::string& headline, Output& out,
                  std::chrono::milliseconds interval = std::chrono::milliseconds(500));

}  // namespace fed::plugin
