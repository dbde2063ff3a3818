#pragma once
// NetlinkRouteTable: RouteTable over libnl (rtnl_route, rtnl_rule) in the network namespace the
// object was created in (its socket stays bound to that namespace).

#include <cstdint>
#include <memory>

#include "agent/node/os/route_table.hpp"

namespace fed::os {

class NetlinkRouteTable final : public RouteTable {
 public:
  // Connects a netlink socket; `table` and `priority` identify everything the agent owns.
  static Result<std::unique_ptr<NetlinkRouteTable>> create(std::uint32_t table,
                                                           std::uint32_t priority);
  ~NetlinkRouteTable() override;

  Result<std::vector<Route>> routes() override;
  Status replace_route(const Route& route) override;
  Status delete_route(const Route& route) override;
  Result<std::vector<PolicyRule>> rules() override;
  Status add_rule(const PolicyRule& rule) override;
  Status delete_rule(const PolicyRule& rule) override;

 private:
  struct State;
  explicit NetlinkRouteTable(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace fed::os
