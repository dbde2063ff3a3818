#include "agent/node/fabric/dnat_sync.hpp"

#include "agent/node/fabric/dnat_plan.hpp"

namespace fed::fabric {

DnatSync::DnatSync(os::DnatTable& table, std::chrono::milliseconds verify_period)
    : table_(table), verify_period_(verify_period) {}

Result<os::DnatChanges> DnatSync::converge(os::DnatState desired) {
  const auto now = std::chrono::steady_clock::now();
  if (!known_ || now - read_at_ >= verify_period_) {
    auto observed = table_.read();
    if (!observed) {
      known_.reset();
      return Unexpected(observed.error().with_context("read the DNAT maps"));
    }
    known_ = std::move(*observed);
    read_at_ = now;
  }
  auto changes = plan_dnat(desired, *known_);
  if (changes.empty()) return changes;
  if (auto s = table_.apply(changes); !s) {
    known_.reset();  // whatever the kernel holds now, the next pass reads it
    return Unexpected(s.error().with_context("update the DNAT maps"));
  }
  known_ = std::move(desired);
  return changes;
}

}  // namespace fed::fabric
