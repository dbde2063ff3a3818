#pragma once
// PrefixMap: the networks the IPAM has handed out or reserved, kept disjoint and ordered so
// that an overlap check and a first-free search cost O(log n) per step.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shared/net/net_types.hpp"

namespace fed::fabric::ipam {

// Why a network is taken.
enum class Owner {
  LocalPod,       // our PodCIDR
  LocalService,   // our ServiceCIDR
  LocalExternal,  // our ExternalCIDR
  Reserved,       // a user-reserved subnet
  PeerPod,        // the network used here for a peer's pods
  PeerExternal,   // the network used here for a peer's ExternalCIDR
};

struct UsedNetwork {
  net::Cidr cidr;
  Owner owner = Owner::Reserved;
  std::string cluster_id;  // the peer, for PeerPod and PeerExternal

  friend bool operator==(const UsedNetwork&, const UsedNetwork&) = default;
};

// "the local PodCIDR 10.244.0.0/16", "the network 10.0.1.0/24 used for peer c2's PodCIDR".
std::string describe(const UsedNetwork& used);

class PrefixMap final {
 public:
  // The taken network that overlaps `cidr`, or nullptr when `cidr` is free.
  const UsedNetwork* find_overlap(const net::Cidr& cidr) const;
  // Takes `used.cidr`, which must be free (find_overlap returned nullptr).
  void insert(UsedNetwork used);
  // Frees exactly `cidr`; false when it was not taken as such.
  bool erase(const net::Cidr& cidr);
  // The lowest free network of `length` bits inside `pool`, if any.
  std::optional<net::Cidr> first_free(const net::Cidr& pool, std::uint8_t length) const;
  // Every taken network, in address order.
  std::vector<UsedNetwork> entries() const;
  std::size_t size() const { return by_start_.size(); }

 private:
  std::map<std::uint32_t, UsedNetwork> by_start_;  // key: first address
};

}  // namespace fed::fabric::ipam
