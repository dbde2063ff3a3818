#pragma once
// LinkManager: the agent's own VXLAN overlay device (created, changed and deleted only when it
// carries the agent's marker) and read-only questions about every other link.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "os/net_types.hpp"
#include "result/result.hpp"

namespace fed::os {

// First two bytes of the MAC of every device the agent creates (locally administered). The MAC
// is set in the message that creates the device, so a device stays recognisably the agent's
// even when the agent dies before it can set the alias marker.
inline constexpr std::uint8_t kOwnedMacPrefix[2] = {0x02, 0xfe};

// The overlay device as the agent wants it: unicast VXLAN, no learning, fixed MAC and address.
struct VxlanDevice {
  std::string name;
  std::uint32_t vni = 0;
  std::uint16_t port = 0;  // UDP destination port
  Ipv4 local;              // underlay source address (the node IP)
  MacAddr mac;
  Ipv4 address;  // overlay address on the device
  std::uint8_t prefix_length = 0;
  std::uint32_t mtu = 0;  // 0: the kernel's default

  friend bool operator==(const VxlanDevice&, const VxlanDevice&) = default;
};

// A forwarding entry: frames for `mac` are sent to the underlay address `remote`.
struct FdbEntry {
  MacAddr mac;
  Ipv4 remote;
  auto operator<=>(const FdbEntry&) const = default;
};

// A permanent neighbour entry: overlay address `ip` resolves to `mac` without ARP.
struct NeighbourEntry {
  Ipv4 ip;
  MacAddr mac;
  auto operator<=>(const NeighbourEntry&) const = default;
};

// What the kernel has for a VXLAN device of a given name.
struct VxlanState {
  VxlanDevice device;
  bool owned = false;  // carries the agent's alias or MAC prefix: the agent may change or delete it
  bool up = false;
  std::vector<FdbEntry> fdb;
  std::vector<NeighbourEntry> neighbours;
};

class LinkManager {
 public:
  virtual ~LinkManager() = default;

  // The VXLAN device `name`, or nullopt when no link has that name. A link of another kind
  // with that name is a Conflict error naming it.
  virtual Result<std::optional<VxlanState>> vxlan(std::string_view name) = 0;
  // Creates the device with the agent's marker, sets its address and brings it up.
  virtual Status create_vxlan(const VxlanDevice& device) = 0;
  // Deletes the device; refuses (Conflict) a device without the agent's marker.
  virtual Status delete_vxlan(std::string_view name) = 0;

  virtual Status add_fdb(std::string_view device, const FdbEntry& entry) = 0;
  virtual Status delete_fdb(std::string_view device, const FdbEntry& entry) = 0;
  virtual Status add_neighbour(std::string_view device, const NeighbourEntry& entry) = 0;
  virtual Status delete_neighbour(std::string_view device, const NeighbourEntry& entry) = 0;

  // Whether a link named `name` exists (any kind; read-only).
  virtual Result<bool> link_exists(std::string_view name) = 0;
};

}  // namespace fed::os
