#pragma once
// The managers' election as Prometheus sees it (docs/HA.md), in the role's registry:
//   fed_manager_leader                 gauge: 1 while this process leads, else 0
//   fed_manager_leader_changes_total   counter: leader terms (holder, epoch) this process saw
//                                      begin or found in place, the first one included
//   fed_manager_failover_seconds       gauge: how long the federation went without a leader
//                                      before this process took over (absent until then)

#include <chrono>
#include <optional>

#include "agent/manager/ha/leader_record.hpp"
#include "shared/metrics/registry.hpp"

namespace fed::ha {

class LeaderMetrics final {
 public:
  explicit LeaderMetrics(metrics::Registry& registry);

  void set_leading(bool leading) { leader_.set(leading ? 1 : 0); }
  // LeaderCallbacks::new_leader: counts a new term; a leader gone (none) is not a change of
  // leader, so that a resignation and its takeover count once.
  void observed(const std::optional<LeaderRecord>& leader) {
    if (leader) changes_.inc();
  }
  // LeaderElector::takeover_wait() once this process leads.
  void took_over(std::chrono::nanoseconds wait) {
    failover_.with({}).set(std::chrono::duration<double>(wait).count());
  }

 private:
  metrics::Gauge& leader_;
  metrics::Counter& changes_;
  // A family without labels whose one series is created on the first takeover: a standby that
  // never took over exports no failover time rather than a misleading 0.
  metrics::Family<metrics::Gauge>& failover_;
};

}  // namespace fed::ha
