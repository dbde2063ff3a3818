#include "agent/node/os/linux/netns_scope.hpp"

#include <fcntl.h>
#include <sched.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <spdlog/spdlog.h>

namespace fed::os {

Result<NetnsScope> NetnsScope::enter_named(std::string_view name) {
  return enter_path("/run/netns/" + std::string(name));
}

Result<NetnsScope> NetnsScope::enter_path(const std::string& path) {
  Fd original(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
  if (!original) {
    return fail(ErrorCode::Internal,
                std::string("open /proc/thread-self/ns/net: ") + std::strerror(errno));
  }
  Fd target(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!target) {
    return fail(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::Internal,
                "open network namespace " + path + ": " + std::strerror(errno));
  }
  if (::setns(target.get(), CLONE_NEWNET) != 0) {
    return fail(errno == EPERM ? ErrorCode::Permission : ErrorCode::Internal,
                "enter network namespace " + path + ": " + std::strerror(errno) +
                    (errno == EPERM ? " (needs CAP_SYS_ADMIN)" : ""));
  }
  return NetnsScope(std::move(original));
}

NetnsScope::~NetnsScope() {
  if (!original_) return;  // moved from
  if (::setns(original_.get(), CLONE_NEWNET) != 0) {
    spdlog::critical("cannot return to the original network namespace: {}", std::strerror(errno));
    std::abort();
  }
}

}  // namespace fed::os
