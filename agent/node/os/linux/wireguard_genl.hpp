#pragma once
// The kernel WireGuard's generic netlink family ("wireguard", linux/wireguard.h): reading a
// device (WG_CMD_GET_DEVICE, a dump that may split one peer across messages) and changing it
// (WG_CMD_SET_DEVICE), in the UAPI value types the tunnel planner already speaks. Sockets are
// opened per call, so each call acts in the calling thread's network namespace.

#include <string_view>

#include "agent/node/tunnel/uapi_text.hpp"
#include "shared/result/result.hpp"

namespace fed::os::wg_genl {

// Whether the family resolves. Asking for it makes the kernel load the wireguard module when
// it has one on disk (the module carries the family's alias).
bool family_available();

// The device `interface` as the kernel has it. NotFound when no WireGuard link has that name.
Result<tunnel::UapiDevice> get_device(std::string_view interface);

// Applies `set` to `interface`: one message for the device's own fields, then one per peer, in
// the set's order (removals first). Invalid names an endpoint or allowed IP that is not an
// address; errors name the peer by its public key.
Status set_device(std::string_view interface, const tunnel::UapiSet& set);

}  // namespace fed::os::wg_genl
