#pragma once
// DnatEntries: one nftables map's elements, external address -> endpoint (both in host order),
// as a vector sorted by the external address. The gateway builds the desired map from its
// NatMappings' entries, which come sorted, and compares it with what it last committed on every
// pass: a copy and one merge walk, where a hash map cost 30 000 allocations, lookups and frees a
// pass at 30 000 mappings. Edits in the middle (tests, the fake kernel) cost O(n), as they may.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <utility>
#include <vector>

namespace fed::os {

class DnatEntries {
 public:
  using value_type = std::pair<std::uint32_t, std::uint32_t>;
  using const_iterator = std::vector<value_type>::const_iterator;

  DnatEntries() = default;
  DnatEntries(std::initializer_list<value_type> entries)
      : DnatEntries(from(std::vector<value_type>(entries))) {}

  // Any order, a sorted one costing one check (a NodeNetworkState's mappings are sorted); of two
  // entries with one external address the first given is kept.
  static DnatEntries from(std::vector<value_type> entries) {
    if (!std::is_sorted(entries.begin(), entries.end(), by_key)) {
      std::stable_sort(entries.begin(), entries.end(), by_key);
    }
    auto last = std::unique(entries.begin(), entries.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; });
    entries.erase(last, entries.end());
    DnatEntries out;
    out.entries_ = std::move(entries);
    return out;
  }

  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  const_iterator find(std::uint32_t external) const {
    auto it = lower(external);
    return it != entries_.end() && it->first == external ? it : entries_.end();
  }
  bool contains(std::uint32_t external) const { return find(external) != end(); }
  std::uint32_t at(std::uint32_t external) const {
    auto it = find(external);
    if (it == end()) throw std::out_of_range("DnatEntries::at: no such external address");
    return it->second;
  }
  // Adds the entry unless the external address has one; the entry there, and whether it is new.
  std::pair<const_iterator, bool> emplace(std::uint32_t external, std::uint32_t endpoint) {
    auto it = lower(external);
    if (it != entries_.end() && it->first == external) return {it, false};
    return {entries_.insert(it, value_type{external, endpoint}), true};
  }
  std::size_t erase(std::uint32_t external) {
    auto it = find(external);
    if (it == end()) return 0;
    entries_.erase(it);
    return 1;
  }

  friend bool operator==(const DnatEntries&, const DnatEntries&) = default;

 private:
  static bool by_key(const value_type& a, const value_type& b) { return a.first < b.first; }
  const_iterator lower(std::uint32_t external) const {
    return std::lower_bound(entries_.begin(), entries_.end(), value_type{external, 0}, by_key);
  }

  std::vector<value_type> entries_;
};

}  // namespace fed::os
