#include "agent/node/fabric/dnat_sync.hpp"

#include "agent/node/fabric/dnat_plan.hpp"

namespace fed::fabric {

DnatSync::DnatSync(os::DnatTable& table, std::chrono::milliseconds verify_period)
    : table_(table), verify_period_(verify_period) {}

Result<os::DnatChanges> DnatSync::converge(os::DnatState desired) {
  const auto now = std::chrono::steady_clock::now();
  if (known_ && now - checked_at_ >= verify_period_) {
    auto generation = table_.generation();
    if (!generation || generation_ != *generation) known_.reset();  // someone else wrote
    checked_at_ = now;
  }
  if (!known_) {
    // The generation first: a change made while the table is read moves it past this value.
    auto generation = table_.generation();
    auto observed = table_.read();
    if (!observed) return Unexpected(observed.error().with_context("read the DNAT maps"));
    known_ = std::move(*observed);
    generation_ = generation ? std::optional(*generation) : std::nullopt;
    checked_at_ = now;
  }
  auto changes = plan_dnat(desired, *known_);
  if (changes.empty()) return changes;
  if (auto s = table_.apply(changes); !s) {
    known_.reset();  // whatever the kernel holds now, the next pass reads it
    return Unexpected(s.error().with_context("update the DNAT maps"));
  }
  known_ = std::move(desired);
  // Our commit moved the generation; a write by someone else between the commit and this read
  // would go unnoticed until the next one moves it again.
  auto generation = table_.generation();
  generation_ = generation ? std::optional(*generation) : std::nullopt;
  return changes;
}

}  // namespace fed::fabric
