#pragma once
// In-memory stand-ins for the agent/node/os interfaces, applying changes the way the kernel back
// ends do, so planners and the reconciler can be checked for convergence and idempotence on values.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "agent/node/os/dnat_table.hpp"
#include "agent/node/os/link_manager.hpp"
#include "agent/node/os/nat_table.hpp"
#include "agent/node/os/route_table.hpp"

namespace fed::fabric::testing {

class FakeRouteTable final : public os::RouteTable {
 public:
  Result<std::vector<os::Route>> routes() override { return routes_; }
  Status replace_route(const os::Route& r) override {
    ++writes;
    std::erase_if(routes_, [&](const os::Route& x) { return x.dst == r.dst; });
    routes_.push_back(r);
    return ok();
  }
  Status delete_route(const os::Route& r) override {
    ++writes;
    auto it = std::find(routes_.begin(), routes_.end(), r);
    if (it == routes_.end()) return fail(ErrorCode::NotFound, "no route");
    routes_.erase(it);
    return ok();
  }
  Result<std::vector<os::PolicyRule>> rules() override { return rules_; }
  Status add_rule(const os::PolicyRule& r) override {
    ++writes;
    rules_.push_back(r);
    return ok();
  }
  Status delete_rule(const os::PolicyRule& r) override {
    ++writes;
    auto it = std::find(rules_.begin(), rules_.end(), r);
    if (it == rules_.end()) return fail(ErrorCode::NotFound, "no rule");
    rules_.erase(it);
    return ok();
  }

  std::vector<os::Route> routes_;
  std::vector<os::PolicyRule> rules_;
  int writes = 0;
};

class FakeLinkManager final : public os::LinkManager {
 public:
  Result<std::optional<os::VxlanState>> vxlan(std::string_view) override { return vxlan_; }
  Status create_vxlan(const os::VxlanDevice& d) override {
    ++writes;
    vxlan_ = os::VxlanState{d, true, true, {}, {}};
    return ok();
  }
  Status delete_vxlan(std::string_view) override {
    ++writes;
    if (vxlan_ && !vxlan_->owned) return fail(ErrorCode::Conflict, "foreign");
    vxlan_.reset();
    return ok();
  }
  Status add_fdb(std::string_view, const os::FdbEntry& e) override {
    ++writes;
    vxlan_->fdb.push_back(e);
    return ok();
  }
  Status delete_fdb(std::string_view, const os::FdbEntry& e) override {
    ++writes;
    std::erase(vxlan_->fdb, e);
    return ok();
  }
  Status add_neighbour(std::string_view, const os::NeighbourEntry& e) override {
    ++writes;
    vxlan_->neighbours.push_back(e);
    return ok();
  }
  Status delete_neighbour(std::string_view, const os::NeighbourEntry& e) override {
    ++writes;
    std::erase(vxlan_->neighbours, e);
    return ok();
  }
  Result<bool> link_exists(std::string_view) override { return true; }
  Result<std::vector<os::ConnectedNetwork>> connected_networks() override { return connected; }
  // Generic links are the tunnel's; the fabric never touches them.
  Result<std::optional<os::LinkState>> link(std::string_view) override {
    return std::optional<os::LinkState>();
  }
  Status set_link(std::string_view, const os::LinkSettings&) override { return ok(); }
  Status add_address(std::string_view, const os::LinkAddress&) override { return ok(); }
  Status delete_address(std::string_view, const os::LinkAddress&) override { return ok(); }
  Status delete_owned_link(std::string_view) override { return ok(); }

  std::optional<os::VxlanState> vxlan_;
  std::vector<os::ConnectedNetwork> connected;
  int writes = 0;
};

// A nat table: built-in chains hold foreign rules too; FED- chains are the agent's.
class FakeNatTable final : public os::NatTable {
 public:
  FakeNatTable() {
    for (const char* b : {"PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"}) chains[b];
  }
  static bool builtin(const std::string& n) {
    return n == "PREROUTING" || n == "INPUT" || n == "OUTPUT" || n == "POSTROUTING";
  }
  Result<os::NatSnapshot> read() override {
    os::NatSnapshot snap;
    for (const auto& [name, rules] : chains) {
      if (name.starts_with("FED-")) {
        snap.chains[name] = rules;
      } else if (builtin(name)) {
        auto& hook = snap.hooks[name];
        hook.total = rules.size();
        for (std::size_t i = 0; i < rules.size(); ++i) {
          bool owned =
              (rules[i].action == os::NatAction::Jump && rules[i].jump.starts_with("FED-")) ||
              rules[i].comment.starts_with("fed:");
          if (owned) hook.owned.emplace_back(i, rules[i]);
        }
      }
    }
    return snap;
  }
  Result<os::NatChanges> transact(const os::NatPlanner& plan) override {
    auto snap = read();
    auto ch = plan(*snap);
    if (!ch || ch->empty()) return ch;
    ++commits;
    for (const auto& c : ch->create_chains) chains[c];
    for (const auto& e : ch->edits) {
      auto& rules = chains.at(e.chain);
      auto pos = e.delete_positions;
      std::sort(pos.rbegin(), pos.rend());
      for (auto p : pos) rules.erase(rules.begin() + static_cast<long>(p));
      for (const auto& [p, r] : e.insert) {
        REQUIRE(p <= rules.size());
        rules.insert(rules.begin() + static_cast<long>(p), r);
      }
    }
    for (const auto& c : ch->delete_chains) chains.erase(c);
    return ch;
  }

  std::map<std::string, std::vector<os::NatRule>> chains;
  int commits = 0;
};

// The nftables table as nft applies a script: in order, failing whole on what nft refuses
// (an element deleted that is not there, a map created twice with `add` is fine).
class FakeDnatTable final : public os::DnatTable {
 public:
  Result<os::DnatState> read() override {
    ++reads;
    return state;
  }
  Status apply(const os::DnatChanges& ch) override {
    if (ch.empty()) return ok();
    if (ch.delete_table && !state.table) return Unexpected(Error(ErrorCode::NotFound, "no table"));
    os::DnatState next = ch.delete_table ? os::DnatState{} : state;
    if (ch.ensure_table) next.table = next.chain_ok = true;
    const bool only_delete = ch.delete_table && !ch.ensure_table;
    if (!next.table && !only_delete) return Unexpected(Error(ErrorCode::NotFound, "no table"));
    if (ch.rewrite_rules) next.rules.clear();
    for (const auto& m : ch.delete_maps) {
      if (next.maps.erase(m) == 0) return Unexpected(Error(ErrorCode::NotFound, "no map " + m));
    }
    for (const auto& m : ch.create_maps) next.maps[m];
    for (const auto& e : ch.elements) {
      auto it = next.maps.find(e.map);
      if (it == next.maps.end()) return Unexpected(Error(ErrorCode::NotFound, "no map " + e.map));
      for (auto k : e.remove) {
        if (it->second.erase(k) == 0) return Unexpected(Error(ErrorCode::NotFound, "no element"));
      }
      for (auto [k, v] : e.add) {
        auto [slot, fresh] = it->second.emplace(k, v);
        if (!fresh && slot->second != v) return Unexpected(Error(ErrorCode::Conflict, "exists"));
      }
    }
    if (ch.rewrite_rules) next.rules = ch.rules;
    for (const auto& r : next.rules) {
      if (!next.maps.contains(r.map)) return Unexpected(Error(ErrorCode::NotFound, "no map"));
    }
    state = std::move(next);
    ++commits;
    ++gen;
    return ok();
  }
  Result<std::uint32_t> generation() override { return gen; }
  // A change by someone else: the kernel moves the generation for every transaction.
  os::DnatState& edit() {
    ++gen;
    return state;
  }
  os::DnatState state;
  std::uint32_t gen = 1;
  int reads = 0;
  int commits = 0;
};

}  // namespace fed::fabric::testing
