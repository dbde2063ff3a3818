#include "agent/node/fabric/node_reconciler.hpp"

#include <spdlog/spdlog.h>

#include "agent/node/fabric/apply.hpp"
#include "agent/node/fabric/dnat_plan.hpp"
#include "agent/node/fabric/link_plan.hpp"
#include "agent/node/fabric/nat_plan.hpp"
#include "agent/node/fabric/route_plan.hpp"

namespace fed::fabric {

NodeReconciler::NodeReconciler(DatapathDeps deps, NodeStateSource& source, DatapathConfig config,
                               std::chrono::milliseconds resync, DatapathMetrics* metrics)
    : deps_(deps),
      source_(source),
      config_(std::move(config)),
      resync_(resync),
      metrics_(metrics),
      dnat_(deps.dnat, resync) {}

Result<kube::Requeue> NodeReconciler::reconcile(const kube::Request& /*request*/) {
  auto start = std::chrono::steady_clock::now();
  Status outcome = ok();
  auto state = source_.load();
  if (!state) {
    outcome = Unexpected(state.error());
  } else {
    OwnedCounts owned;
    outcome = converge(*state, &owned);
    owned_ = owned;
  }
  if (metrics_ != nullptr) {
    metrics_->record_pass(std::chrono::steady_clock::now() - start, owned_, outcome);
  }
  if (!outcome) return Unexpected(outcome.error());
  return kube::Requeue{resync_, false};
}

Status NodeReconciler::reconcile_mappings() {
  auto start = std::chrono::steady_clock::now();
  auto state = source_.load();
  Status outcome = state ? converge_dnat(*state, owned_) : Unexpected(state.error());
  if (metrics_ != nullptr) {
    metrics_->record_pass(std::chrono::steady_clock::now() - start, owned_, outcome);
  }
  return outcome;
}

Status NodeReconciler::converge_dnat(const NodeNetworkState& state, OwnedCounts& owned) {
  auto dnat = desired_dnat(state);
  // What the maps are to hold; the nat chains' count holds the maps' rules too.
  owned.nat_rules = owned.nat_rules - owned.dnat_rules + dnat.rules.size();
  owned.dnat_rules = dnat.rules.size();
  owned.dnat_entries = entry_count(dnat);
  auto mapped = dnat_.converge(std::move(dnat));
  if (!mapped) return Unexpected(mapped.error());
  if (!mapped->empty()) {
    spdlog::debug("datapath: DNAT maps committed: +maps={} -maps={} +entries={} -entries={}{}",
                  mapped->create_maps.size(), mapped->delete_maps.size(), mapped->added(),
                  mapped->removed(), mapped->rewrite_rules ? " (rules rewritten)" : "");
  }
  return ok();
}

Status NodeReconciler::converge(const NodeNetworkState& state, OwnedCounts* owned) {
  Errors errors;

  DirectNodes direct;
  if (config_.direct_routing) {
    auto connected = deps_.links.connected_networks();
    if (!connected) return Unexpected(connected.error().with_context("direct routing"));
    direct = direct_nodes(state, config_, *connected);
  }

  auto overlay = desired_overlay(state, config_, direct);
  auto observed_link = deps_.links.vxlan(config_.vxlan_device);
  if (!observed_link) {
    errors.add(observed_link.error());
  } else {
    auto plan = plan_links(overlay, *observed_link, config_);
    if (!plan) {
      errors.add(plan.error());
    } else if (!plan->empty()) {
      spdlog::info("datapath: overlay changes: create={} delete={} +fdb={} -fdb={}",
                   plan->create_device.has_value(), plan->delete_device.has_value(),
                   plan->add_fdb.size(), plan->delete_fdb.size());
      errors.add(apply_links(deps_.links, *plan, config_.vxlan_device));
    }
  }

  // Read routes after the overlay: recreating the device removed the routes through it.
  auto desired = desired_routes(state, config_, direct);
  auto routes = deps_.routes.routes();
  auto rules = deps_.routes.rules();
  if (!routes) {
    errors.add(routes.error());
  } else if (!rules) {
    errors.add(rules.error());
  } else {
    auto plan = plan_routes(desired, RouteSet{*routes, *rules});
    if (!plan.empty()) {
      spdlog::info("datapath: route changes: -rules={} -routes={} ~routes={} +rules={}",
                   plan.delete_rules.size(), plan.delete_routes.size(), plan.replace_routes.size(),
                   plan.add_rules.size());
      errors.add(apply_routes(deps_.routes, plan));
    }
  }

  // The maps before the nat chains: an upgrade from the legacy FED-MAP- chains has its mappings
  // in nftables before the chains holding them go.
  OwnedCounts counts;
  errors.add(converge_dnat(state, counts));

  auto nat = desired_nat(state);
  auto applied = deps_.nat.transact(
      [&](const os::NatSnapshot& snap) -> Result<os::NatChanges> { return plan_nat(nat, snap); });
  if (!applied) {
    errors.add(applied.error().with_context("nat table"));
  } else if (!applied->empty()) {
    std::size_t appended = 0, deleted = 0;
    for (const auto& e : applied->edits) {
      appended += e.insert.size();
      deleted += e.delete_positions.size();
    }
    spdlog::info("datapath: nat committed: +chains={} -chains={} +rules={} -rules={}",
                 applied->create_chains.size(), applied->delete_chains.size(), appended, deleted);
  }

  if (owned != nullptr) {
    *owned = OwnedCounts{rule_count(nat) + counts.dnat_rules, desired.routes.size(),
                         desired.rules.size(), counts.dnat_entries, counts.dnat_rules};
  }
  return errors.result("node " + state.node_name + " datapath");
}

}  // namespace fed::fabric
