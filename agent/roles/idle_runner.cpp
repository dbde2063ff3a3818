#include "roles/idle_runner.hpp"

#include <spdlog/spdlog.h>

namespace fed::agent {

Status IdleRunner::start(const RoleContext&) {
  ready_ = true;
  spdlog::info("role {} started; controllers: none yet", to_string(role_));
  return ok();
}

void IdleRunner::stop() {
  if (ready_.exchange(false)) spdlog::info("role {} stopped", to_string(role_));
}

}  // namespace fed::agent
