#include "agent/manager/ha/leader_metrics.hpp"

namespace fed::ha {

LeaderMetrics::LeaderMetrics(metrics::Registry& registry)
    : leader_(registry.gauge("fed_manager_leader",
                             "1 while this manager leads the federation, else 0.")),
      changes_(registry.counter("fed_manager_leader_changes_total",
                                "Leader terms (holder, epoch) this manager saw begin or found in "
                                "place, the first one included.")),
      failover_(registry.gauge_family(
          "fed_manager_failover_seconds",
          "Seconds the federation went without a leader before this manager took over: from the "
          "last move of the leadership record it saw to its own acquisition (monotonic clock).",
          {})) {}

}  // namespace fed::ha
