#pragma once
// LinkManager: the agent's own VXLAN overlay device (created, changed and deleted only when it
// carries the agent's marker), the settings and addresses of links a helper created for the
// agent (the WireGuard tunnel's TUN device, which wireguard-go creates), and read-only questions
// about every other link.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/node/os/net.hpp"
#include "shared/result/result.hpp"

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

// An IPv4 address on an interface, with the prefix length of its connected route.
struct LinkAddress {
  Ipv4 ip;
  std::uint8_t prefix_length = 32;
  auto operator<=>(const LinkAddress&) const = default;
};

// A subnet reachable without a router: the prefix of an IPv4 address on an up link (host
// addresses, /32, have none).
struct ConnectedNetwork {
  Cidr network;
  std::string dev;
  friend bool operator==(const ConnectedNetwork&, const ConnectedNetwork&) = default;
};

// Any link, as the kernel reports it.
struct LinkState {
  std::string kind;    // rtnetlink kind: "tun", "vxlan", "veth"; "" when the kernel gives none
  bool owned = false;  // carries the agent's alias marker
  bool up = false;
  std::uint32_t mtu = 0;
  std::vector<LinkAddress> addresses;  // IPv4 only
};

// Changes to an existing link; empty fields are left as they are.
struct LinkSettings {
  std::optional<std::uint32_t> mtu;
  std::optional<bool> up;
  bool mark_owned = false;  // set the agent's alias marker

  friend bool operator==(const LinkSettings&, const LinkSettings&) = default;
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

  // Every connected IPv4 network of the namespace, with its link (read-only).
  virtual Result<std::vector<ConnectedNetwork>> connected_networks() = 0;

  // The link `name` of any kind, or nullopt when there is none.
  virtual Result<std::optional<LinkState>> link(std::string_view name) = 0;
  // Changes MTU, state or marker of the existing link `name` (NotFound when it is missing).
  virtual Status set_link(std::string_view name, const LinkSettings& settings) = 0;
  // Adds an address; an address already there is not an error.
  virtual Status add_address(std::string_view name, const LinkAddress& address) = 0;
  // Removes an address; NotFound when it is not there.
  virtual Status delete_address(std::string_view name, const LinkAddress& address) = 0;
  // Deletes the link `name` of any kind; refuses (Conflict) a link without the agent's alias.
  virtual Status delete_owned_link(std::string_view name) = 0;
};

}  // namespace fed::os
