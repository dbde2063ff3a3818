#pragma once
// RouteTable: the agent's routes and policy rules. Every route lives in one routing table the
// agent owns and every policy rule carries that table and the agent's own priority, so the
// CNI's routes and rules are never read as ours nor touched.

#include <optional>
#include <string>
#include <vector>

#include "agent/node/os/net.hpp"
#include "shared/result/result.hpp"

namespace fed::os {

// A unicast route in the agent's table.
struct Route {
  Cidr dst;
  std::optional<Ipv4> via;  // next hop; none for a route straight out of `dev`
  std::string dev;          // output interface name

  friend bool operator==(const Route&, const Route&) = default;
};

// A policy rule "[to dst] [iif dev] lookup <agent table> pref <agent priority>".
struct PolicyRule {
  std::optional<Cidr> to;  // destination selector; none matches every destination
  std::string iif;         // input interface selector; empty matches every interface

  friend bool operator==(const PolicyRule&, const PolicyRule&) = default;
};

// Routes and rules of the agent's dedicated table; implementations fix table id and priority.
class RouteTable {
 public:
  virtual ~RouteTable() = default;

  // Every IPv4 route in the agent's table.
  virtual Result<std::vector<Route>> routes() = 0;
  // Adds the route, or replaces the one to the same destination.
  virtual Status replace_route(const Route& route) = 0;
  // Removes the route; NotFound when it is already gone.
  virtual Status delete_route(const Route& route) = 0;

  // Every IPv4 policy rule that looks up the agent's table with the agent's priority.
  virtual Result<std::vector<PolicyRule>> rules() = 0;
  // Adds one rule (duplicates are the caller's concern: plan against rules() first).
  virtual Status add_rule(const PolicyRule& rule) = 0;
  // Removes one rule equal to `rule`; NotFound when there is none.
  virtual Status delete_rule(const PolicyRule& rule) = 0;
};

}  // namespace fed::os
