#include "agent/path_probe/cli/path_probe_command.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "agent/etcdproxy/socket_util.hpp"
#include "agent/path_probe/path_probe.hpp"
#include "shared/util/duration.hpp"

namespace fed::probe {
namespace {

constexpr int kExitNoAnswer = 1;
constexpr int kExitUsage = 2;

// In a pod, what the container leaves in /dev/termination-log becomes its status's termination
// message: kubectl fed join --wait reads the outcome there, without needing pods/log access.
void record_outcome(const std::string& line) {
  constexpr const char* kTerminationLog = "/dev/termination-log";
  if (::access(kTerminationLog, W_OK) != 0) return;
  std::ofstream(kTerminationLog) << line << "\n";
}

int usage_error(const std::string& message) {
  std::cerr << "fed-agent probe: " << message << "\n";
  return kExitUsage;
}

}  // namespace

ProbeCommand::ProbeCommand(CLI::App& command) : app_(&command) {
  app_->add_option("--listen", listen_port_,
                   "Serve on this TCP port: answer each connection with the source address seen "
                   "(only those that send $FED_PROBE_TOKEN first when it is set). Neither --listen "
                   "nor --dial: run for --for, serving nothing");
  app_->add_option("--id", id_, "The listener's name in its answers");
  app_->add_option("--for", serve_for_, "How long the listener serves (a Go duration)")
      ->capture_default_str();
  app_->add_option("--dial", dial_, "Connect to ADDRESS:PORT and print the listener's answer");
  app_->add_option("--timeout", timeout_, "How long --dial keeps trying (a Go duration)")
      ->capture_default_str();
}

int ProbeCommand::run(const agent::AgentOptions&) {
  if (listen_port_ > 0 && !dial_.empty()) {
    return usage_error("give one of --listen PORT or --dial ADDRESS:PORT, not both");
  }
  // From the environment, not a flag: a pod's command line shows on its node to anyone (ps).
  const char* token_env = std::getenv("FED_PROBE_TOKEN");
  const std::string token = token_env != nullptr ? token_env : "";
  if (dial_.empty()) {
    if (listen_port_ > 65535) return usage_error("--listen: a port is 1-65535");
    auto serve_for = util::parse_duration(serve_for_);
    if (!serve_for) return usage_error("--for: " + serve_for.error().message());
    const auto deadline = std::chrono::duration_cast<std::chrono::milliseconds>(*serve_for);
    auto served = listen_port_ > 0
                      ? listen(static_cast<std::uint16_t>(listen_port_), id_, deadline, token)
                      : idle(deadline);
    if (!served) return usage_error(served.error().message());
    return 0;
  }
  auto target = etcdproxy::parse_host_port(dial_);
  if (!target) return usage_error("--dial: " + target.error().message());
  auto timeout = util::parse_duration(timeout_);
  if (!timeout) return usage_error("--timeout: " + timeout.error().message());
  auto answer = dial(target->host, target->port,
                     std::chrono::duration_cast<std::chrono::milliseconds>(*timeout), token);
  if (!answer) {
    std::cerr << "fed-agent probe: " << answer.error().message() << "\n";
    record_outcome(answer.error().message());
    return kExitNoAnswer;
  }
  std::cout << *answer << "\n";
  record_outcome(*answer);
  return 0;
}

}  // namespace fed::probe
