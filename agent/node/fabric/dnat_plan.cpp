#include "agent/node/fabric/dnat_plan.hpp"

#include "agent/node/fabric/chain_names.hpp"

namespace fed::fabric {
namespace {

os::DnatChanges::Elements diff_entries(const std::string& map, const os::DnatEntries& want,
                                       const os::DnatEntries& have) {
  os::DnatChanges::Elements e{map, {}, {}};
  for (const auto& [external, endpoint] : have) {
    auto it = want.find(external);
    if (it == want.end() || it->second != endpoint) e.remove.push_back(external);
  }
  for (const auto& [external, endpoint] : want) {
    auto it = have.find(external);
    if (it == have.end() || it->second != endpoint) e.add.emplace_back(external, endpoint);
  }
  return e;
}

}  // namespace

os::DnatState desired_dnat(const NodeNetworkState& state) {
  os::DnatState out;
  if (!state.is_gateway()) return out;
  for (const auto& p : state.peers) {
    if (p.nat_mappings.empty()) continue;
    std::string name = mapping_map(p.cluster_id);
    auto& entries = out.maps[name];
    entries.reserve(p.nat_mappings.size());
    for (const auto& m : p.nat_mappings) entries.emplace(m.external_ip.value, m.endpoint_ip.value);
    out.rules.push_back(os::DnatRule{std::move(name), p.pod_cidr, state.external_view_of(p)});
  }
  if (!out.maps.empty()) out.table = out.chain_ok = true;
  return out;
}

os::DnatChanges plan_dnat(const os::DnatState& desired, const os::DnatState& observed) {
  os::DnatChanges ch;
  if (!desired.table) {
    ch.delete_table = observed.table;
    return ch;
  }
  static const os::DnatState kNothing;
  const bool rebuild = observed.table && (!observed.chain_ok || observed.foreign);
  const os::DnatState& base = rebuild ? kNothing : observed;
  ch.delete_table = rebuild;
  ch.ensure_table = !base.table || !base.chain_ok;
  ch.rewrite_rules = base.rules != desired.rules;
  if (ch.rewrite_rules) ch.rules = desired.rules;
  for (const auto& [name, entries] : base.maps) {
    if (!desired.maps.contains(name)) ch.delete_maps.push_back(name);
  }
  static const os::DnatEntries kNone;
  for (const auto& [name, entries] : desired.maps) {
    auto it = base.maps.find(name);
    if (it == base.maps.end()) ch.create_maps.push_back(name);
    auto e = diff_entries(name, entries, it == base.maps.end() ? kNone : it->second);
    if (!e.add.empty() || !e.remove.empty()) ch.elements.push_back(std::move(e));
  }
  return ch;
}

std::size_t entry_count(const os::DnatState& state) {
  std::size_t n = 0;
  for (const auto& [name, entries] : state.maps) n += entries.size();
  return n;
}

}  // namespace fed::fabric
