#include "agent/roles/options.hpp"

#include "shared/http/address.hpp"

namespace fed::agent {

int log_verbosity(int klog_level) {
  if (klog_level <= 0) return 0;
  if (klog_level <= 4) return 1;
  return 2;
}

Status validate(const AgentOptions& options) {
  auto address = http::resolve_listen_address(options.bind_address);
  if (!address) return std::move(address).error().with_context("--bind-address");
  if (!options.metrics_bind_address.empty()) {
    auto metrics = http::resolve_listen_address(options.metrics_bind_address);
    if (!metrics) return std::move(metrics).error().with_context("--metrics-bind-address");
  }
  if (options.verbosity < 0) {
    return fail(ErrorCode::Invalid,
                "-v: level must be 0 or more, got " + std::to_string(options.verbosity));
  }
  return ok();
}

}  // namespace fed::agent
