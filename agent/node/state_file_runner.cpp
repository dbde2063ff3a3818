#include "agent/node/state_file_runner.hpp"

#include <spdlog/spdlog.h>

namespace fed::fabric {

Status StateFileNodeRunner::start(const agent::RoleContext& ctx) {
  if (options_.state_file.empty()) {
    return fail(ErrorCode::Invalid, "--state-file: a file path is required in state-file mode");
  }
  running_ = true;
  loop_ = std::jthread([this, &registry = ctx.metrics](std::stop_token stop) {
    const int code = run_node_datapath(options_, stop, registry);
    if (code != kExitOk) spdlog::error("node datapath stopped with exit code {}", code);
    running_ = false;
  });
  spdlog::info("node datapath follows {}", options_.state_file.string());
  return ok();
}

void StateFileNodeRunner::stop() {
  if (loop_.joinable()) {
    loop_.request_stop();
    loop_.join();
  }
}

}  // namespace fed::fabric
