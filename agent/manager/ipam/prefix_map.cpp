#include "agent/manager/ipam/prefix_map.hpp"

#include <cassert>

namespace fed::fabric::ipam {

std::string describe(const UsedNetwork& used) {
  const std::string c = used.cidr.str();
  switch (used.owner) {
    case Owner::LocalPod:
      return "the local PodCIDR " + c;
    case Owner::LocalService:
      return "the local ServiceCIDR " + c;
    case Owner::LocalExternal:
      return "the local ExternalCIDR " + c;
    case Owner::Reserved:
      return "the reserved subnet " + c;
    case Owner::PeerPod:
      return "the network " + c + " used for peer " + used.cluster_id + "'s PodCIDR";
    case Owner::PeerExternal:
      return "the network " + c + " used for peer " + used.cluster_id + "'s ExternalCIDR";
  }
  return c;
}

const UsedNetwork* PrefixMap::find_overlap(const net::Cidr& cidr) const {
  // Entries are disjoint and sorted, so their ends are sorted too: only the last entry that
  // starts at or before the end of `cidr` can reach into it.
  auto it = by_start_.upper_bound(cidr.last().value);
  if (it == by_start_.begin()) return nullptr;
  --it;
  return it->second.cidr.last().value >= cidr.network.value ? &it->second : nullptr;
}

void PrefixMap::insert(UsedNetwork used) {
  assert(find_overlap(used.cidr) == nullptr);
  auto start = used.cidr.network.value;
  by_start_.emplace(start, std::move(used));
}

bool PrefixMap::erase(const net::Cidr& cidr) {
  auto it = by_start_.find(cidr.network.value);
  if (it == by_start_.end() || it->second.cidr != cidr) return false;
  by_start_.erase(it);
  return true;
}

std::optional<net::Cidr> PrefixMap::first_free(const net::Cidr& pool, std::uint8_t length) const {
  if (length < pool.length || length > 32) return std::nullopt;
  const std::uint64_t size = std::uint64_t{1} << (32 - length);
  const std::uint64_t end = std::uint64_t{pool.last().value} + 1;
  std::uint64_t candidate = pool.network.value;
  // Each step either returns or jumps past one taken network: O(k log n) for k networks met.
  while (candidate + size <= end) {
    net::Cidr c{net::Ipv4{static_cast<std::uint32_t>(candidate)}, length};
    const UsedNetwork* taken = find_overlap(c);
    if (taken == nullptr) return c;
    std::uint64_t next = std::uint64_t{taken->cidr.last().value} + 1;
    candidate = (next + size - 1) / size * size;  // the next aligned start at or after `next`
  }
  return std::nullopt;
}

std::vector<UsedNetwork> PrefixMap::entries() const {
  std::vector<UsedNetwork> out;
  out.reserve(by_start_.size());
  for (const auto& [start, used] : by_start_) out.push_back(used);
  return out;
}

}  // namespace fed::fabric::ipam
