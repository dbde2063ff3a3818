#include "agent/node/tunnel/tunnel_config.hpp"

#include <fmt/format.h>

#include <set>

namespace fed::tunnel {
namespace {

// Every range a peer's WireGuard entry claims: its ranges and its tunnel address.
std::vector<net::Cidr> claimed(const TunnelPeer& p) {
  std::vector<net::Cidr> out = p.ranges;
  out.push_back(net::Cidr::host(p.tunnel_address));
  return out;
}

}  // namespace

Status validate_options(const TunnelOptions& o) {
  if (o.interface.empty() || o.interface.size() > 15 ||
      o.interface.find_first_of("/ \t\n:") != std::string::npos || o.interface == "." ||
      o.interface == "..") {
    return fail(ErrorCode::Invalid,
                fmt::format("tunnel interface \"{}\": a Linux interface name is 1 to 15 "
                            "characters without '/', ':' or spaces; use e.g. fed.wg",
                            o.interface));
  }
  if (o.listen_port == 0) {
    return fail(ErrorCode::Invalid, "tunnel listen port is 0; set it (WireGuard's is 51820)");
  }
  if (o.address.value == 0) {
    return fail(ErrorCode::Invalid,
                "tunnel address is not set; the federation manager allocates one per gateway "
                "(e.g. from 169.254.64.0/18)");
  }
  if (o.prefix_length < 1 || o.prefix_length > 32) {
    return fail(ErrorCode::Invalid,
                fmt::format("tunnel prefix length {} is out of range; use the tunnel pool's "
                            "(18 for 169.254.64.0/18)",
                            o.prefix_length));
  }
  if (o.private_key_file.empty()) {
    return fail(ErrorCode::Invalid,
                "tunnel private key file is empty; set it (e.g. "
                "/var/lib/kubectl-fed/wireguard/private.key)");
  }
  if (o.backend != TunnelBackend::Kernel && (o.wireguard_go.empty() || o.socket_dir.empty())) {
    return fail(ErrorCode::Invalid,
                "wireguard-go program or socket directory is empty; set both (wireguard-go, "
                "/var/run/wireguard)");
  }
  if (o.mtu < 1280 || o.mtu > 65535) {
    return fail(ErrorCode::Invalid,
                fmt::format("tunnel MTU {} is out of range; use 1280..65535 (1420 for a 1500 "
                            "underlay)",
                            o.mtu));
  }
  return ok();
}

Status validate_peers(const std::vector<TunnelPeer>& peers, const TunnelOptions& options,
                      const WgKey& own_public_key) {
  const net::Cidr pool = net::Cidr::containing(options.address, options.prefix_length);
  std::set<WgKey> keys;
  for (std::size_t i = 0; i < peers.size(); ++i) {
    const auto& p = peers[i];
    const std::string field = fmt::format("tunnel peer {} (\"{}\")", i, p.cluster_id);
    FED_ASSIGN_OR_RETURN(auto key, WgKey::from_base64(p.public_key, field + " publicKey"));
    if (key == own_public_key) {
      return fail(ErrorCode::Invalid,
                  field +
                      ": publicKey is this gateway's own key; a gateway cannot peer with "
                      "itself (check which cluster's key was published)");
    }
    if (!keys.insert(key).second) {
      return fail(ErrorCode::Invalid,
                  field + ": publicKey is also another peer's; each gateway has its own key");
    }
    if (p.endpoint.value == 0 || p.endpoint_port == 0) {
      return fail(ErrorCode::Invalid, field +
                                          ": endpoint is not set; give the peer gateway's "
                                          "underlay address and UDP port");
    }
    if (p.tunnel_address.value == 0 || p.tunnel_address == options.address) {
      return fail(ErrorCode::Invalid,
                  field + ": tunnelAddress " + p.tunnel_address.str() +
                      " is unset or equal to ours; each gateway needs its own tunnel address");
    }
    if (!pool.contains(p.tunnel_address)) {
      return fail(ErrorCode::Invalid,
                  fmt::format("{}: tunnelAddress {} is outside our tunnel prefix {}; both "
                              "gateways' addresses come from the same pool (check the "
                              "manager's allocation or the prefix length)",
                              field, p.tunnel_address.str(), pool.str()));
    }
    for (std::size_t j = 0; j < i; ++j) {
      for (const auto& a : claimed(p)) {
        for (const auto& b : claimed(peers[j])) {
          if (a.overlaps(b)) {
            return fail(ErrorCode::Invalid,
                        fmt::format("{}: range {} overlaps {} of tunnel peer {} (\"{}\"); peer "
                                    "views must be disjoint (the IPAM remaps colliding ranges)",
                                    field, a.str(), b.str(), j, peers[j].cluster_id));
          }
        }
      }
    }
  }
  return ok();
}

}  // namespace fed::tunnel
