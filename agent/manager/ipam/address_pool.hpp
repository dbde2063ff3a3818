#pragma once
// AddressPool: the addresses of one network (our ExternalCIDR), handed out lowest-free-first.
// Free space is an ordered map of free ranges, so allocate, reserve and release are O(log f)
// for f free ranges, whatever the size of the network, and memory follows fragmentation.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

#include "shared/net/net_types.hpp"

namespace fed::fabric::ipam {

class AddressPool final {
 public:
  // Usable addresses of `range`: all but the network and broadcast addresses (/31 and /32:
  // all of them).
  explicit AddressPool(const net::Cidr& range);

  // The lowest free address, now taken; nullopt when the pool is exhausted.
  std::optional<net::Ipv4> allocate();
  // Takes `ip` (restoring a saved allocation); false when it is not usable or already taken.
  bool reserve(net::Ipv4 ip);
  // Gives `ip` back; false when it is not usable or was not taken.
  bool release(net::Ipv4 ip);
  // Whether `ip` is a usable address of the pool.
  bool usable(net::Ipv4 ip) const { return ip.value >= first_ && ip.value <= last_; }

  const net::Cidr& range() const { return range_; }
  std::size_t capacity() const {
    return static_cast<std::size_t>(std::uint64_t{last_} - first_ + 1);
  }
  std::size_t used() const { return used_; }

 private:
  net::Cidr range_;
  std::uint32_t first_ = 0;
  std::uint32_t last_ = 0;
  std::map<std::uint32_t, std::uint32_t> free_;  // first -> last address of each free range
  std::size_t used_ = 0;
};

}  // namespace fed::fabric::ipam
