#include "agent/node/fabric/datapath_metrics.hpp"

namespace fed::fabric {

DatapathMetrics::DatapathMetrics(metrics::Registry& registry)
    : nat_rules_(registry.gauge("fed_datapath_nat_rules_owned",
                                "nat rules the agent owns (FED- chains, built-in jumps and the "
                                "DNAT maps' dispatch rules).")),
      dnat_entries_(registry.gauge("fed_datapath_dnat_map_entries",
                                   "Endpoint mappings in the agent's nftables DNAT maps.")),
      routes_(registry.gauge("fed_datapath_routes_owned", "Routes in the agent's routing table.")),
      policy_rules_(registry.gauge("fed_datapath_policy_rules_owned",
                                   "Policy rules that look up the agent's routing table.")),
      duration_(registry.histogram(
          "fed_datapath_reconcile_duration_seconds", "Duration of one datapath reconcile pass.",
          {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5})),
      errors_(registry.counter_family("fed_datapath_reconcile_errors_total",
                                      "Failed datapath reconcile passes by error code.", {"code"})),
      last_error_time_(registry.gauge("fed_datapath_last_error_timestamp_seconds",
                                      "Unix time of the last failed datapath pass.")) {}

void DatapathMetrics::record_pass(std::chrono::duration<double> took, const OwnedCounts& owned,
                                  const Status& outcome) {
  duration_.observe(took.count());
  nat_rules_.set(static_cast<double>(owned.nat_rules));
  dnat_entries_.set(static_cast<double>(owned.dnat_entries));
  routes_.set(static_cast<double>(owned.routes));
  policy_rules_.set(static_cast<double>(owned.policy_rules));
  std::lock_guard lock(mu_);
  if (outcome) {
    last_error_.clear();
    return;
  }
  errors_.with({std::string(to_string(outcome.error().code()))}).inc();
  last_error_time_.set(
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
  last_error_ = outcome.error().message();
}

std::string DatapathMetrics::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace fed::fabric
