#include "agent/node/tunnel/vxlan_tunnel.hpp"

#include <spdlog/spdlog.h>

#include "agent/node/fabric/apply.hpp"
#include "agent/node/fabric/translate.hpp"

namespace fed::tunnel {

fabric::DesiredOverlay desired_vxlan_tunnel(const VxlanTunnelOptions& options, net::Ipv4 address,
                                            std::uint8_t prefix_length,
                                            const std::vector<VxlanTunnelPeer>& peers) {
  fabric::DesiredOverlay out;
  if (peers.empty()) return out;
  os::VxlanDevice dev;
  dev.name = options.interface;
  dev.vni = options.vni;
  dev.port = options.port;
  dev.mac = fabric::overlay_mac(address);
  dev.address = address;
  dev.prefix_length = prefix_length;
  dev.mtu = options.mtu;
  out.device = dev;
  for (const auto& p : peers) {
    out.fdb.push_back(os::FdbEntry{fabric::overlay_mac(p.tunnel_address), p.endpoint});
    out.neighbours.push_back(
        os::NeighbourEntry{p.tunnel_address, fabric::overlay_mac(p.tunnel_address)});
  }
  return out;
}

Status converge_vxlan_tunnel(os::LinkManager& links, const VxlanTunnelOptions& options,
                             const fabric::DesiredOverlay& desired) {
  FED_ASSIGN_OR_RETURN(auto observed, links.vxlan(options.interface));
  fabric::DatapathConfig names;  // plan_links names the device from the config
  names.vxlan_device = options.interface;
  FED_ASSIGN_OR_RETURN(auto plan, fabric::plan_links(desired, observed, names));
  if (plan.empty()) return ok();
  spdlog::info("gateway tunnel: {} changes: create={} delete={} +fdb={} -fdb={}", options.interface,
               plan.create_device.has_value(), plan.delete_device.has_value(), plan.add_fdb.size(),
               plan.delete_fdb.size());
  return fabric::apply_links(links, plan, options.interface);
}

}  // namespace fed::tunnel
