#include "agent/node/fabric/uninstall.hpp"

#include <spdlog/spdlog.h>

#include "agent/node/fabric/apply.hpp"
#include "agent/node/fabric/dnat_plan.hpp"
#include "agent/node/fabric/nat_plan.hpp"
#include "agent/node/fabric/route_plan.hpp"

namespace fed::fabric {

Status uninstall_datapath(DatapathDeps deps, const DatapathConfig& config) {
  Errors errors;
  // nat first: with the jumps gone no packet is translated toward routes being removed.
  auto nat = deps.nat.transact([](const os::NatSnapshot& snap) -> Result<os::NatChanges> {
    return plan_nat(DesiredNat{}, snap);
  });
  if (!nat) errors.add(nat.error().with_context("remove nat chains"));
  auto maps = deps.dnat.read();
  if (!maps) {
    errors.add(maps.error().with_context("read the DNAT maps"));
  } else {
    errors.add(deps.dnat.apply(plan_dnat(os::DnatState{}, *maps)));
  }

  auto routes = deps.routes.routes();
  auto rules = deps.routes.rules();
  if (!routes || !rules) {
    errors.add(routes ? rules.error() : routes.error());
  } else {
    errors.add(apply_routes(deps.routes, plan_routes(RouteSet{}, RouteSet{*routes, *rules})));
  }

  auto link = deps.links.vxlan(config.vxlan_device);
  if (!link) {
    // A foreign link of another kind under our name: not ours, leave it.
    if (link.error().code() != ErrorCode::Conflict) errors.add(link.error());
  } else if (*link && !(*link)->owned) {
    spdlog::warn("uninstall: link {} has no fed-agent marker; left in place", config.vxlan_device);
  } else if (*link) {
    auto s = deps.links.delete_vxlan(config.vxlan_device);
    if (!s && s.error().code() != ErrorCode::NotFound) errors.add(s);
  }
  return errors.result("uninstall");
}

}  // namespace fed::fabric
