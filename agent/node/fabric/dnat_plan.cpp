#include "agent/node/fabric/dnat_plan.hpp"

#include <vector>

#include "agent/node/fabric/chain_names.hpp"

namespace fed::fabric {
namespace {

// One walk over both, each sorted by external address.
os::DnatChanges::Elements diff_entries(const std::string& map, const os::DnatEntries& want,
                                       const os::DnatEntries& have) {
  os::DnatChanges::Elements e{map, {}, {}};
  auto w = want.begin();
  auto h = have.begin();
  while (w != want.end() || h != have.end()) {
    if (h == have.end() || (w != want.end() && w->first < h->first)) {
      e.add.push_back(*w++);
    } else if (w == want.end() || h->first < w->first) {
      e.remove.push_back((h++)->first);
    } else {
      if (w->second != h->second) {  // a changed endpoint: removed, then added
        e.remove.push_back(h->first);
        e.add.push_back(*w);
      }
      ++w;
      ++h;
    }
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
    std::vector<os::DnatEntries::value_type> entries;
    entries.reserve(p.nat_mappings.size());
    for (const auto& m : p.nat_mappings) {
      entries.emplace_back(m.external_ip.value, m.endpoint_ip.value);
    }
    out.maps[name] = os::DnatEntries::from(std::move(entries));  // in order already, as a rule
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
