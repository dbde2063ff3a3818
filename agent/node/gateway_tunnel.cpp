#include "agent/node/gateway_tunnel.hpp"

#include <algorithm>
#include <ctime>
#include <map>

#include <spdlog/spdlog.h>

#include "agent/node/fabric/apply.hpp"
#include "agent/node/gateway_tunnel_config.hpp"
#include "agent/node/tunnel/key_file.hpp"
#include "agent/node/tunnel/tunnel_status.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

const json* find_node(const NodeStateInputs& in) {
  for (const auto& n : in.nodes) {
    if (n["metadata"].value("name", "") == in.node_name) return &n;
  }
  return nullptr;
}

}  // namespace

GatewayTunnel::GatewayTunnel(GatewayTunnelDeps deps, tunnel::TunnelOptions options,
                             tunnel::VxlanTunnelOptions vxlan)
    : deps_(std::move(deps)), options_(std::move(options)), vxlan_(std::move(vxlan)) {
  if (!deps_.now) deps_.now = [] { return static_cast<std::int64_t>(std::time(nullptr)); };
}

Status GatewayTunnel::reconcile(const NodeStateInputs& in) {
  auto config = derive_gateway_tunnel(in);
  if (!config) return Unexpected(config.error().with_context("gateway tunnel"));
  handshake_pending_ = false;
  if (!config->gateway) {
    if (deps_.probe != nullptr) deps_.probe->set_targets({});
    return remove_if_present("node " + in.node_name + " is not the gateway");
  }

  // The private key stays in its file and in the daemon; only the public key leaves the node.
  auto key = tunnel::load_or_create_private_key(options_.private_key_file);
  if (!key) return Unexpected(key.error().with_context("gateway tunnel key"));
  FED_ASSIGN_OR_RETURN(const auto public_key, tunnel::public_key_of(*key));

  fabric::Errors errors;
  errors.add(publish(in, public_key.base64()));
  PeeringStatuses statuses;
  for (const auto& w : config->waiting) statuses.emplace_back(w.peering, w.status);
  if (!config->address) {
    errors.add(remove_if_present("no Peering gives this gateway a tunnel address yet"));
  } else {
    if (!config->peers.empty() || config->vxlan_peers.empty()) {
      tunnel::DesiredTunnel desired{options_, *key, {}};
      desired.options.address = *config->address;
      std::vector<std::string> names;
      for (const auto& p : config->peers) {
        desired.peers.push_back(p.peer);
        names.push_back(p.peering);
      }
      errors.add(converge(desired, names, in.node_name, statuses));
    } else {
      errors.add(remove_wireguard_if_present("every peer uses the vxlan backend"));
    }
    errors.add(converge_vxlan(config->vxlan_peers, *config->address, in.node_name, statuses));
  }
  apply_probe(*config, statuses);
  errors.add(report(in, statuses));
  handshake_pending_ = std::any_of(statuses.begin(), statuses.end(), [](const auto& s) {
    return s.second.state == fedapi::TunnelState::Connecting;
  });
  return errors.result("gateway tunnel on node " + in.node_name);
}

Status GatewayTunnel::publish(const NodeStateInputs& in, const std::string& public_key) {
  const json* node = find_node(in);
  if (node == nullptr) {
    return fail(ErrorCode::NotFound, "Node " + in.node_name +
                                         " is not in the cache yet; the gateway is published "
                                         "once it is");
  }
  FED_ASSIGN_OR_RETURN(const auto address, gateway_address(*node));
  const GatewayInfo wanted{in.node_name, address + ":" + std::to_string(options_.listen_port),
                           public_key};
  if (in.published_gateway == wanted) return ok();
  FED_TRY(deps_.api.publish(wanted));
  spdlog::info("gateway tunnel: published endpoint {} and public key {} in ConfigMap {}/{}",
               wanted.endpoint, wanted.public_key, kNamespace, kGatewayConfigMap);
  return ok();
}

Status GatewayTunnel::converge(const tunnel::DesiredTunnel& desired,
                               const std::vector<std::string>& names, const std::string& node,
                               PeeringStatuses& statuses) {
  const auto& iface = desired.options.interface;
  auto changes = deps_.tunnel.converge(desired);
  if (!changes) {
    for (const auto& name : names) {
      statuses.emplace_back(name, tunnel_error_status(iface, node, changes.error().message()));
    }
    return Unexpected(changes.error());
  }
  if (!changes->empty()) {
    spdlog::info("gateway tunnel: {} converged ({} peers): daemon started={}, {} peer changes",
                 iface, desired.peers.size(), changes->start_daemon, changes->uapi.peers.size());
  }
  auto observed = deps_.tunnel.observe(desired.options);
  if (!observed || !observed->device) {
    const std::string why =
        observed ? "the WireGuard daemon does not answer" : observed.error().message();
    for (const auto& name : names) {
      statuses.emplace_back(name, tunnel_error_status(iface, node, why));
    }
    return observed ? fail(ErrorCode::Unavailable, "tunnel " + iface + ": " + why)
                    : Unexpected(observed.error());
  }
  const std::int64_t now = deps_.now();
  for (std::size_t i = 0; i < desired.peers.size(); ++i) {
    const auto& peer = desired.peers[i];
    std::optional<tunnel::UapiPeer> seen;
    for (const auto& p : observed->device->peers) {
      if (p.public_key.base64() == peer.public_key) seen = p;
    }
    statuses.emplace_back(names[i],
                          peer_tunnel_status(peer, seen, now, desired.options.listen_port));
  }
  return ok();
}

Status GatewayTunnel::report(const NodeStateInputs& in, const PeeringStatuses& statuses) {
  std::map<std::string, const json*> peerings;
  for (const auto& p : in.peerings) peerings[p["metadata"].value("name", "")] = &p;
  fabric::Errors errors;
  for (const auto& [name, status] : statuses) {
    const auto it = peerings.find(name);
    if (it != peerings.end() && fedapi::current_tunnel_status(*it->second) == status) continue;
    auto s = deps_.api.report(name, status);
    if (!s) {
      errors.add(s);
      continue;
    }
    spdlog::info("gateway tunnel: Peering {}: {}{}{}", name, fedapi::to_string(status.state),
                 status.message.empty() ? "" : ": ", status.message);
  }
  return errors.result("tunnel status");
}

Status GatewayTunnel::converge_vxlan(const std::vector<VxlanTunnelPeering>& peers,
                                     net::Ipv4 address, const std::string& node,
                                     PeeringStatuses& statuses) {
  std::vector<tunnel::VxlanTunnelPeer> wanted;
  for (const auto& p : peers) wanted.push_back(p.peer);
  auto s = tunnel::converge_vxlan_tunnel(
      deps_.links, vxlan_,
      tunnel::desired_vxlan_tunnel(vxlan_, address, options_.prefix_length, wanted));
  for (const auto& p : peers) {
    statuses.emplace_back(p.peering,
                          s ? fedapi::TunnelStatus{fedapi::TunnelState::Connected, ""}
                            : tunnel_error_status(vxlan_.interface, node, s.error().message()));
  }
  return s;
}

void GatewayTunnel::apply_probe(const GatewayTunnelConfig& config, PeeringStatuses& statuses) {
  if (deps_.probe == nullptr) return;
  struct Probed {
    std::string cluster;
    net::Ipv4 address;
  };
  std::map<std::string, Probed> probed;
  if (config.address) {
    for (const auto& p : config.peers) {
      probed[p.peering] = {p.peer.cluster_id, p.peer.tunnel_address};
    }
    for (const auto& p : config.vxlan_peers) {
      probed[p.peering] = {p.peer.cluster_id, p.peer.tunnel_address};
    }
  }
  std::vector<ProbeTarget> targets;
  for (const auto& [name, p] : probed) targets.push_back({name, p.address});
  deps_.probe->set_targets(targets);
  for (auto& [name, status] : statuses) {
    const auto it = probed.find(name);
    if (it == probed.end()) continue;
    status = probed_tunnel_status(std::move(status), deps_.probe->answer(name), it->second.cluster,
                                  it->second.address);
  }
}

Status GatewayTunnel::remove_if_present(std::string_view why) {
  fabric::Errors errors;
  errors.add(remove_wireguard_if_present(why));
  errors.add(tunnel::converge_vxlan_tunnel(deps_.links, vxlan_, {}));
  return errors.result("gateway tunnel removal");
}

Status GatewayTunnel::remove_wireguard_if_present(std::string_view why) {
  auto observed = deps_.tunnel.observe(options_);
  if (!observed) return Unexpected(observed.error().with_context("gateway tunnel"));
  const bool ours = observed->link && observed->link->owned;
  if (!ours && !observed->daemon_running) return ok();
  spdlog::info("gateway tunnel: removing {}: {}", options_.interface, why);
  return deps_.tunnel.uninstall(options_);
}

}  // namespace fed::federation
