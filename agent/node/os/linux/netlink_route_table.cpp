#include "agent/node/os/linux/netlink_route_table.hpp"

#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>
#include <sys/socket.h>

#include "agent/node/os/linux/nl_common.hpp"

namespace fed::os {
namespace {

void put_route(rtnl_route* r) {
  rtnl_route_put(r);
}
void put_rule(rtnl_rule* r) {
  rtnl_rule_put(r);
}
using RouteHandle = CHandle<rtnl_route, put_route>;
using RuleHandle = CHandle<rtnl_rule, put_rule>;

std::string describe(const Route& r) {
  return r.dst.str() + (r.via ? " via " + r.via->str() : "") + " dev " + r.dev;
}

std::string describe(const PolicyRule& r) {
  std::string s = r.to ? "to " + r.to->str() : "from all";
  if (!r.iif.empty()) s += " iif " + r.iif;
  return s;
}

}  // namespace

struct NetlinkRouteTable::State {
  nl::SocketHandle sock;
  std::uint32_t table;
  std::uint32_t priority;

  // Builds a route object for `route` in the agent's table; resolves the device name. For a
  // delete it leaves protocol and scope open, so a route someone else added there goes too.
  Result<RouteHandle> build(const Route& route, bool for_delete = false) {
    RouteHandle r(rtnl_route_alloc());
    if (!r) return fail(ErrorCode::Internal, "netlink: out of memory building a route");
    rtnl_route_set_family(r.get(), AF_INET);
    rtnl_route_set_table(r.get(), table);
    rtnl_route_set_type(r.get(), RTN_UNICAST);
    if (for_delete) {
      rtnl_route_set_scope(r.get(), RT_SCOPE_NOWHERE);
      rtnl_route_set_protocol(r.get(), RTPROT_UNSPEC);  // libnl defaults to static
    } else {
      rtnl_route_set_protocol(r.get(), RTPROT_STATIC);
      rtnl_route_set_scope(r.get(), route.via ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK);
    }
    auto dst = nl::make_addr(route.dst);
    if (int err = rtnl_route_set_dst(r.get(), dst.get()); err < 0) {
      return nl::error("set destination " + route.dst.str(), err);
    }
    FED_ASSIGN_OR_RETURN(int idx, nl::ifindex(sock.get(), route.dev));
    rtnl_nexthop* nh = rtnl_route_nh_alloc();
    if (nh == nullptr) return fail(ErrorCode::Internal, "netlink: out of memory for a nexthop");
    rtnl_route_nh_set_ifindex(nh, idx);
    if (route.via) {
      auto gw = nl::make_addr(*route.via);
      rtnl_route_nh_set_gateway(nh, gw.get());
    }
    rtnl_route_add_nexthop(r.get(), nh);  // the route owns the nexthop now
    return r;
  }

  Result<RuleHandle> build(const PolicyRule& rule) {
    RuleHandle r(rtnl_rule_alloc());
    if (!r) return fail(ErrorCode::Internal, "netlink: out of memory building a rule");
    rtnl_rule_set_family(r.get(), AF_INET);
    rtnl_rule_set_table(r.get(), table);
    rtnl_rule_set_prio(r.get(), priority);
    rtnl_rule_set_action(r.get(), FR_ACT_TO_TBL);
    if (rule.to) {
      auto dst = nl::make_addr(*rule.to);
      if (int err = rtnl_rule_set_dst(r.get(), dst.get()); err < 0) {
        return nl::error("set rule destination " + rule.to->str(), err);
      }
    }
    if (!rule.iif.empty()) rtnl_rule_set_iif(r.get(), rule.iif.c_str());
    return r;
  }
};

NetlinkRouteTable::NetlinkRouteTable(std::unique_ptr<State> state) : state_(std::move(state)) {}
NetlinkRouteTable::~NetlinkRouteTable() = default;

Result<std::unique_ptr<NetlinkRouteTable>> NetlinkRouteTable::create(std::uint32_t table,
                                                                     std::uint32_t priority) {
  FED_ASSIGN_OR_RETURN(auto sock, nl::connect_route_socket());
  auto state = std::make_unique<State>(State{std::move(sock), table, priority});
  return std::unique_ptr<NetlinkRouteTable>(new NetlinkRouteTable(std::move(state)));
}

Result<std::vector<Route>> NetlinkRouteTable::routes() {
  nl_cache* raw_links = nullptr;
  if (int err = rtnl_link_alloc_cache(state_->sock.get(), AF_UNSPEC, &raw_links); err < 0) {
    return nl::error("list links", err);
  }
  nl::CacheHandle links(raw_links);
  nl_cache* raw = nullptr;
  if (int err = rtnl_route_alloc_cache(state_->sock.get(), AF_INET, 0, &raw); err < 0) {
    return nl::error("list routes", err);
  }
  nl::CacheHandle cache(raw);
  std::vector<Route> out;
  for (nl_object* o = nl_cache_get_first(cache.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* r = reinterpret_cast<rtnl_route*>(o);
    if (rtnl_route_get_table(r) != state_->table) continue;
    Route route;
    auto dst = nl::to_cidr(rtnl_route_get_dst(r));
    route.dst = dst ? *dst : Cidr{};
    if (rtnl_route_get_nnexthops(r) > 0) {
      rtnl_nexthop* nh = rtnl_route_nexthop_n(r, 0);
      route.via = nl::to_ipv4(rtnl_route_nh_get_gateway(nh));
      char name[64] = {};
      rtnl_link_i2name(links.get(), rtnl_route_nh_get_ifindex(nh), name, sizeof name);
      route.dev = name;
    }
    out.push_back(std::move(route));
  }
  return out;
}

Status NetlinkRouteTable::replace_route(const Route& route) {
  FED_ASSIGN_OR_RETURN(auto r, state_->build(route));
  if (int err = rtnl_route_add(state_->sock.get(), r.get(), NLM_F_REPLACE); err < 0) {
    return nl::error(
        "replace route " + describe(route) + " in table " + std::to_string(state_->table), err);
  }
  return ok();
}

Status NetlinkRouteTable::delete_route(const Route& route) {
  FED_ASSIGN_OR_RETURN(auto r, state_->build(route, true));
  if (int err = rtnl_route_delete(state_->sock.get(), r.get(), 0); err < 0) {
    return nl::error("delete route " + describe(route), err);
  }
  return ok();
}

Result<std::vector<PolicyRule>> NetlinkRouteTable::rules() {
  nl_cache* raw = nullptr;
  if (int err = rtnl_rule_alloc_cache(state_->sock.get(), AF_INET, &raw); err < 0) {
    return nl::error("list policy rules", err);
  }
  nl::CacheHandle cache(raw);
  std::vector<PolicyRule> out;
  for (nl_object* o = nl_cache_get_first(cache.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* r = reinterpret_cast<rtnl_rule*>(o);
    if (rtnl_rule_get_table(r) != state_->table || rtnl_rule_get_prio(r) != state_->priority) {
      continue;
    }
    PolicyRule rule;
    rule.to = nl::to_cidr(rtnl_rule_get_dst(r));
    if (const char* iif = rtnl_rule_get_iif(r); iif != nullptr) rule.iif = iif;
    out.push_back(std::move(rule));
  }
  return out;
}

Status NetlinkRouteTable::add_rule(const PolicyRule& rule) {
  FED_ASSIGN_OR_RETURN(auto r, state_->build(rule));
  if (int err = rtnl_rule_add(state_->sock.get(), r.get(), NLM_F_EXCL); err < 0) {
    return nl::error("add rule " + describe(rule) + " lookup " + std::to_string(state_->table),
                     err);
  }
  return ok();
}

Status NetlinkRouteTable::delete_rule(const PolicyRule& rule) {
  FED_ASSIGN_OR_RETURN(auto r, state_->build(rule));
  if (int err = rtnl_rule_delete(state_->sock.get(), r.get(), 0); err < 0) {
    return nl::error("delete rule " + describe(rule), err);
  }
  return ok();
}

}  // namespace fed::os
