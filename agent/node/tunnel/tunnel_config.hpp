#pragma once
// What the gateway tunnel should be: the per-gateway options (interface, port, key file,
// tunnel address) and one TunnelPeer per peered cluster, as the node agent derives them from
// the federation's CRs.

#include <cstdint>
#include <string>
#include <vector>

#include "agent/node/tunnel/wg_key.hpp"
#include "shared/net/net_types.hpp"
#include "shared/result/result.hpp"

namespace fed::tunnel {

// Which WireGuard implementation carries the tunnel.
enum class TunnelBackend {
  Auto,         // the kernel's when its module is loaded, otherwise wireguard-go
  Kernel,       // rtnetlink kind "wireguard" and its generic netlink family
  WireguardGo,  // the userspace daemon over /dev/net/tun
};

// Per-gateway settings; the defaults are the documented ones (docs/DATAPATH.md).
struct TunnelOptions {
  std::string interface = "fed.wg";  // ≤ 15 characters; the datapath's tunnel interface
  std::uint16_t listen_port = 51820;
  // Under the DaemonSet's hostPath /var/lib/kubectl-fed, so the key (the gateway's identity)
  // survives pod restarts and upgrades.
  std::string private_key_file = "/var/lib/kubectl-fed/wireguard/private.key";
  net::Ipv4 address;  // this gateway's tunnel address, from the manager's tunnel pool
  // The tunnel pool's prefix length (169.254.64.0/18): the address goes on the interface with
  // it, so every peer's tunnel address is on-link there and the datapath's routes
  // "<range> via <peer tunnel address> dev fed.wg" resolve without a route per peer.
  std::uint8_t prefix_length = 18;
  std::uint32_t mtu = 1420;  // 1500 underlay minus WireGuard's 80 bytes (IPv6 worst case)
  TunnelBackend backend = TunnelBackend::Auto;
  std::string wireguard_go = "wireguard-go";      // program, searched on PATH
  std::string socket_dir = "/var/run/wireguard";  // where wireguard-go puts <interface>.sock
};

// One peered cluster's gateway.
struct TunnelPeer {
  std::string cluster_id;  // for messages only
  std::string public_key;  // base64, as the peer's manager published it
  net::Ipv4 endpoint;      // the peer gateway's underlay ("public") address
  std::uint16_t endpoint_port = 51820;
  net::Ipv4 tunnel_address;              // the peer gateway's tunnel address
  std::vector<net::Cidr> ranges;         // its PodCIDR and ExternalCIDR as this cluster sees them
  std::uint32_t keepalive_seconds = 25;  // keeps NAT mappings on the path open; 0 = off
};

// Rejects (Invalid, naming the field and the fix) options that cannot work: an interface name
// the kernel refuses, port 0, no tunnel address, a prefix length or MTU out of range, an empty
// key path or daemon program.
Status validate_options(const TunnelOptions& options);

// Rejects peers that would misroute: a bad or duplicate public key, our own public key, a
// missing endpoint or tunnel address, a tunnel address equal to ours or outside our tunnel
// prefix (it would not be on-link), and any two peers whose ranges or tunnel addresses overlap
// (WireGuard would silently move the range to the later peer).
Status validate_peers(const std::vector<TunnelPeer>& peers, const TunnelOptions& options,
                      const WgKey& own_public_key);

}  // namespace fed::tunnel
