#pragma once
// DatapathMetrics: what the node datapath exports. Registered in the role's metrics Registry:
//   fed_datapath_nat_rules_owned, fed_datapath_dnat_map_entries, fed_datapath_routes_owned,
//   fed_datapath_policy_rules_owned,
//   fed_datapath_reconcile_duration_seconds (histogram), fed_datapath_reconcile_errors_total
//   {code}, fed_datapath_last_error_timestamp_seconds; the last error text is kept for logs
//   and status.

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

#include "shared/metrics/registry.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric {

// What the agent owns after a pass.
struct OwnedCounts {
  std::size_t nat_rules = 0;  // the maps' rules included
  std::size_t routes = 0;
  std::size_t policy_rules = 0;
  std::size_t dnat_entries = 0;
  std::size_t dnat_rules = 0;  // of nat_rules
};

class DatapathMetrics final {
 public:
  explicit DatapathMetrics(metrics::Registry& registry);

  // Records one reconcile pass: its duration, what is owned now, and its outcome.
  void record_pass(std::chrono::duration<double> took, const OwnedCounts& owned,
                   const Status& outcome);
  // The message of the most recent failed pass; empty when the last pass succeeded.
  std::string last_error() const;

 private:
  metrics::Gauge& nat_rules_;
  metrics::Gauge& dnat_entries_;
  metrics::Gauge& routes_;
  metrics::Gauge& policy_rules_;
  metrics::Histogram& duration_;
  metrics::Family<metrics::Counter>& errors_;
  metrics::Gauge& last_error_time_;
  mutable std::mutex mu_;
  std::string last_error_;
};

}  // namespace fed::fabric
