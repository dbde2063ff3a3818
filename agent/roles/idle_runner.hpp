#pragma once
// The runner a role uses while it has no controllers: ready as soon as it starts, and says so
// in the log. Roles move to their own runner as their controllers arrive.

#include <atomic>
#include <memory>

#include "roles/role_runner.hpp"

namespace fed::agent {

class IdleRunner final : public RoleRunner {
 public:
  explicit IdleRunner(Role role) : role_(role) {}

  Role role() const override { return role_; }
  Status start(const RoleContext& ctx) override;
  bool ready() const override { return ready_.load(); }
  void stop() override;

 private:
  Role role_;
  std::atomic<bool> ready_{false};
};

}  // namespace fed::agent
