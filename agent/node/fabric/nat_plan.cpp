#include "agent/node/fabric/nat_plan.hpp"

#include <unordered_map>

#include "agent/node/fabric/chain_names.hpp"
#include "agent/node/fabric/translate.hpp"

namespace fed::fabric {
namespace {

std::string peer_comment(const Peer& p) {
  std::string c = std::string(kRuleCommentPrefix) + p.cluster_id;
  if (c.size() > 250) c.resize(250);
  return c;
}

os::NatRule netmap(std::optional<net::Cidr> src, net::Cidr dst, net::Cidr to, std::string comment) {
  os::NatRule r;
  r.src = src;
  r.dst = dst;
  r.action = os::NatAction::Netmap;
  r.to_net = to;
  r.comment = std::move(comment);
  return r;
}

os::NatRule snat_foreign(net::Cidr local, net::Cidr dst, net::Ipv4 to, std::string comment) {
  os::NatRule r;
  r.src = local;
  r.src_negated = os::Negation::Yes;
  r.dst = dst;
  r.action = os::NatAction::Snat;
  r.to_ip = to;
  r.comment = std::move(comment);
  return r;
}

os::NatRule jump(std::optional<net::Cidr> src, std::optional<net::Cidr> dst, std::string chain,
                 std::string comment) {
  os::NatRule r;
  r.src = src;
  r.dst = dst;
  r.action = os::NatAction::Jump;
  r.jump = std::move(chain);
  r.comment = std::move(comment);
  return r;
}

// Deletes every observed rule not matched by a desired one (as a multiset) and inserts the
// missing desired rules where they belong, so a repaired chain reads exactly as planned. If the
// kept rules are out of the planned order (reordered by hand), the chain is rewritten.
os::ChainEdit diff_chain(const std::string& chain, const std::vector<os::NatRule>& want,
                         const std::vector<os::NatRule>& have) {
  os::ChainEdit edit{chain, {}, {}};
  std::vector<bool> used(have.size(), false);
  std::vector<std::size_t> match(want.size(), have.size());  // want index -> have index
  // Index by rule destination first: a chain edited by hand may hold anything.
  auto key = [](const os::NatRule& r) {
    auto d = r.dst.value_or(net::Cidr{});
    return (std::uint64_t{d.network.value} << 8) | d.length;
  };
  std::unordered_multimap<std::uint64_t, std::size_t> by_dst(have.size() * 2);
  for (std::size_t i = 0; i < have.size(); ++i) by_dst.emplace(key(have[i]), i);
  for (std::size_t k = 0; k < want.size(); ++k) {
    auto [lo, hi] = by_dst.equal_range(key(want[k]));
    for (auto it = lo; it != hi; ++it) {
      if (!used[it->second] && have[it->second] == want[k]) {
        used[it->second] = true;
        match[k] = it->second;
        break;
      }
    }
  }
  bool in_order = true;
  std::size_t last = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (match[k] == have.size()) continue;
    if (match[k] < last) in_order = false;
    last = match[k];
  }
  for (std::size_t i = 0; i < have.size(); ++i) {
    if (!used[i] || !in_order) edit.delete_positions.push_back(i);
  }
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (match[k] == have.size() || !in_order) edit.insert.emplace_back(k, want[k]);
  }
  return edit;
}

}  // namespace

DesiredNat desired_nat(const NodeNetworkState& state) {
  DesiredNat out;
  if (!state.is_gateway() || state.peers.empty()) return out;
  auto& pre = out.chains[std::string(kPreroutingChain)];
  auto& post = out.chains[std::string(kPostroutingChain)];
  const net::Cidr local = state.pod_cidr;
  for (const auto& p : state.peers) {
    const net::Cidr view = state.pod_view_of(p);
    const std::string comment = peer_comment(p);
    for (const auto& range : {p.pod_cidr, p.external_cidr}) {
      if (view != local) post.push_back(netmap(local, range, view, comment));
      post.push_back(snat_foreign(local, range, first_host(view), comment));
    }
    if (view != local) pre.push_back(netmap(p.pod_cidr, view, local, comment));
  }
  const std::string hook_comment = std::string(kRuleCommentPrefix) + "jump";
  out.hooks["PREROUTING"] =
      jump(std::nullopt, std::nullopt, std::string(kPreroutingChain), hook_comment);
  out.hooks["POSTROUTING"] =
      jump(std::nullopt, std::nullopt, std::string(kPostroutingChain), hook_comment);
  return out;
}

os::NatChanges plan_nat(const DesiredNat& desired, const os::NatSnapshot& observed) {
  os::NatChanges ch;
  static const std::vector<os::NatRule> kNone;
  for (const auto& [name, rules] : desired.chains) {
    auto it = observed.chains.find(name);
    if (it == observed.chains.end()) ch.create_chains.push_back(name);
    auto edit = diff_chain(name, rules, it == observed.chains.end() ? kNone : it->second);
    if (!edit.delete_positions.empty() || !edit.insert.empty()) ch.edits.push_back(std::move(edit));
  }
  std::map<std::string, const os::HookRules*> hooks;
  for (const auto& [name, hook] : observed.hooks) hooks[name] = &hook;
  for (const auto& [name, rule] : desired.hooks) hooks.try_emplace(name, nullptr);
  for (const auto& [name, hook] : hooks) {
    auto want = desired.hooks.find(name);
    bool has_want = want != desired.hooks.end();
    bool in_place = has_want && hook != nullptr && hook->owned.size() == 1 &&
                    hook->owned[0].first == 0 && hook->owned[0].second == want->second;
    if (in_place || (!has_want && (hook == nullptr || hook->owned.empty()))) continue;
    os::ChainEdit edit{name, {}, {}};
    if (hook != nullptr) {
      for (const auto& [pos, rule] : hook->owned) edit.delete_positions.push_back(pos);
    }
    if (has_want) edit.insert.emplace_back(0, want->second);
    ch.edits.push_back(std::move(edit));
  }
  for (const auto& [name, rules] : observed.chains) {
    if (!desired.chains.contains(name)) ch.delete_chains.push_back(name);
  }
  return ch;
}

std::size_t rule_count(const DesiredNat& desired) {
  std::size_t n = desired.hooks.size();
  for (const auto& [name, rules] : desired.chains) n += rules.size();
  return n;
}

}  // namespace fed::fabric
