#pragma once
// NetnsScope: moves the calling thread into a network namespace and back at scope exit, so
// in-process netlink and libiptc work can target a namespace (tests, benchmarks, tools).
// Objects that hold a socket keep the namespace they were created in.

#include <string>
#include <string_view>

#include "shared/raii/fd.hpp"
#include "shared/result/result.hpp"

namespace fed::os {

class NetnsScope final {
 public:
  // Enters the named namespace (/run/netns/<name>, as `ip netns add` creates it).
  static Result<NetnsScope> enter_named(std::string_view name);
  // Enters the namespace at `path` (e.g. /proc/<pid>/ns/net).
  static Result<NetnsScope> enter_path(const std::string& path);

  NetnsScope(NetnsScope&& other) noexcept = default;
  NetnsScope& operator=(NetnsScope&&) = delete;
  NetnsScope(const NetnsScope&) = delete;
  NetnsScope& operator=(const NetnsScope&) = delete;
  // Returns to the original namespace; aborts if that fails (the thread would be stranded).
  ~NetnsScope();

 private:
  explicit NetnsScope(Fd original) : original_(std::move(original)) {}
  Fd original_;
};

}  // namespace fed::os
