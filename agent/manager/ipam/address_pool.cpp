#include "agent/manager/ipam/address_pool.hpp"

#include <iterator>

namespace fed::fabric::ipam {

AddressPool::AddressPool(const net::Cidr& range) : range_(range) {
  first_ = range.network.value;
  last_ = range.last().value;
  if (range.length <= 30) {
    ++first_;
    --last_;
  }
  free_.emplace(first_, last_);
}

std::optional<net::Ipv4> AddressPool::allocate() {
  if (free_.empty()) return std::nullopt;
  auto it = free_.begin();
  const std::uint32_t ip = it->first;
  const std::uint32_t last = it->second;
  free_.erase(it);
  if (ip != last) free_.emplace_hint(free_.begin(), ip + 1, last);
  ++used_;
  return net::Ipv4{ip};
}

bool AddressPool::reserve(net::Ipv4 ip) {
  if (!usable(ip)) return false;
  auto it = free_.upper_bound(ip.value);
  if (it == free_.begin()) return false;
  --it;
  const std::uint32_t first = it->first;
  const std::uint32_t last = it->second;
  if (ip.value > last) return false;  // between free ranges: taken
  free_.erase(it);
  if (first < ip.value) free_.emplace(first, ip.value - 1);
  if (ip.value < last) free_.emplace(ip.value + 1, last);
  ++used_;
  return true;
}

bool AddressPool::release(net::Ipv4 ip) {
  if (!usable(ip)) return false;
  auto next = free_.upper_bound(ip.value);
  std::uint32_t first = ip.value;
  std::uint32_t last = ip.value;
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->second >= ip.value) return false;  // already free
    if (std::uint64_t{prev->second} + 1 == ip.value) {
      first = prev->first;
      free_.erase(prev);
    }
  }
  if (next != free_.end() && std::uint64_t{ip.value} + 1 == next->first) {
    last = next->second;
    free_.erase(next);
  }
  free_.emplace(first, last);
  --used_;
  return true;
}

}  // namespace fed::fabric::ipam
