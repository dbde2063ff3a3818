#include "agent/node/os/linux/netlink_link_manager.hpp"

#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <net/if.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vxlan.h>
#include <netlink/route/neighbour.h>
#include <sys/socket.h>

#include <fstream>

#include "agent/node/os/linux/nl_common.hpp"
#include "shared/raii/cleanup.hpp"

namespace fed::os {
namespace {

void put_neigh(rtnl_neigh* n) {
  rtnl_neigh_put(n);
}
void put_rtaddr(rtnl_addr* a) {
  rtnl_addr_put(a);
}
using nl::LinkHandle;
using NeighHandle = CHandle<rtnl_neigh, put_neigh>;
using RtAddrHandle = CHandle<rtnl_addr, put_rtaddr>;

// The link called `name`, or nullptr when there is none.
Result<LinkHandle> get_link(nl_sock* sock, std::string_view name) {
  rtnl_link* raw = nullptr;
  std::string n(name);
  int err = rtnl_link_get_kernel(sock, 0, n.c_str(), &raw);
  if (err < 0) {
    if (nl::is_not_found(err)) return LinkHandle();
    return nl::error("look up link " + n, err);
  }
  return LinkHandle(raw);
}

// Reverse-path filtering in loose mode on the device: packets from local pods on other nodes
// arrive here while the CNI's route back to them points elsewhere.
Status set_loose_rp_filter(const std::string& dev) {
  std::ofstream f("/proc/sys/net/ipv4/conf/" + dev + "/rp_filter");
  f << "2\n";
  f.flush();
  if (!f) {
    return fail(ErrorCode::Internal, "set net.ipv4.conf." + dev + ".rp_filter=2: write failed");
  }
  return ok();
}

}  // namespace

struct NetlinkLinkManager::State {
  nl::SocketHandle sock;

  // Builds a permanent neighbour entry on `device` for `dst`: FDB (AF_BRIDGE, dst is the remote
  // VTEP) or ARP (AF_INET). libnl takes the family from the first address set unless the family
  // is set afterwards, so dst comes first.
  Result<NeighHandle> neighbour(std::string_view device, int family, Ipv4 dst) {
    FED_ASSIGN_OR_RETURN(int idx, nl::ifindex(sock.get(), device));
    NeighHandle n(rtnl_neigh_alloc());
    if (!n) return fail(ErrorCode::Internal, "netlink: out of memory building a neighbour");
    rtnl_neigh_set_ifindex(n.get(), idx);
    auto a = nl::make_addr(dst);
    if (int err = rtnl_neigh_set_dst(n.get(), a.get()); err < 0) {
      return nl::error("set neighbour destination " + dst.str(), err);
    }
    rtnl_neigh_set_family(n.get(), family);
    rtnl_neigh_set_state(n.get(), NUD_PERMANENT);
    return n;
  }
};

NetlinkLinkManager::NetlinkLinkManager(std::unique_ptr<State> state) : state_(std::move(state)) {}
NetlinkLinkManager::~NetlinkLinkManager() = default;

Result<std::unique_ptr<NetlinkLinkManager>> NetlinkLinkManager::create() {
  FED_ASSIGN_OR_RETURN(auto sock, nl::connect_route_socket());
  auto state = std::make_unique<State>(State{std::move(sock)});
  return std::unique_ptr<NetlinkLinkManager>(new NetlinkLinkManager(std::move(state)));
}

Result<std::optional<VxlanState>> NetlinkLinkManager::vxlan(std::string_view name) {
  nl_sock* sock = state_->sock.get();
  FED_ASSIGN_OR_RETURN(auto link, get_link(sock, name));
  if (!link) return std::optional<VxlanState>();
  if (rtnl_link_is_vxlan(link.get()) == 0) {
    return fail(ErrorCode::Conflict, "link " + std::string(name) +
                                         " exists and is not a VXLAN device; rename it or "
                                         "choose another overlay device name");
  }
  VxlanState st;
  st.device.name = std::string(name);
  const char* alias = rtnl_link_get_ifalias(link.get());
  if (auto mac = nl::to_mac(rtnl_link_get_addr(link.get()))) st.device.mac = *mac;
  st.owned = (alias != nullptr && std::string_view(alias) == kOwnedLinkAlias) ||
             (st.device.mac.bytes[0] == kOwnedMacPrefix[0] &&
              st.device.mac.bytes[1] == kOwnedMacPrefix[1]);
  st.up = (rtnl_link_get_flags(link.get()) & IFF_UP) != 0;
  std::uint32_t id = 0;
  std::uint32_t port = 0;
  rtnl_link_vxlan_get_id(link.get(), &id);
  rtnl_link_vxlan_get_port(link.get(), &port);
  st.device.vni = id;
  st.device.port = static_cast<std::uint16_t>(port);
  st.device.mtu = rtnl_link_get_mtu(link.get());
  nl_addr* local_raw = nullptr;
  if (rtnl_link_vxlan_get_local(link.get(), &local_raw) == 0) {
    nl::AddrHandle local(local_raw);
    st.device.local = nl::to_ipv4(local.get()).value_or(Ipv4{});
  }
  int idx = rtnl_link_get_ifindex(link.get());

  nl_cache* raw = nullptr;
  if (int err = rtnl_addr_alloc_cache(sock, &raw); err < 0) return nl::error("list addresses", err);
  nl::CacheHandle addrs(raw);
  for (nl_object* o = nl_cache_get_first(addrs.get()); o; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    if (rtnl_addr_get_ifindex(a) != idx || rtnl_addr_get_family(a) != AF_INET) continue;
    nl_addr* local = rtnl_addr_get_local(a);
    st.device.address = nl::to_ipv4(local).value_or(Ipv4{});
    st.device.prefix_length = static_cast<std::uint8_t>(nl_addr_get_prefixlen(local));
  }

  raw = nullptr;
  if (int err = rtnl_neigh_alloc_cache_flags(sock, &raw, NL_CACHE_AF_ITER); err < 0) {
    return nl::error("list neighbours", err);
  }
  nl::CacheHandle neighs(raw);
  for (nl_object* o = nl_cache_get_first(neighs.get()); o; o = nl_cache_get_next(o)) {
    auto* n = reinterpret_cast<rtnl_neigh*>(o);
    if (rtnl_neigh_get_ifindex(n) != idx || (rtnl_neigh_get_state(n) & NUD_PERMANENT) == 0) {
      continue;
    }
    auto mac = nl::to_mac(rtnl_neigh_get_lladdr(n));
    auto ip = nl::to_ipv4(rtnl_neigh_get_dst(n));
    if (!mac || !ip) continue;
    if (rtnl_neigh_get_family(n) == AF_BRIDGE) {
      st.fdb.push_back(FdbEntry{*mac, *ip});
    } else if (rtnl_neigh_get_family(n) == AF_INET) {
      st.neighbours.push_back(NeighbourEntry{*ip, *mac});
    }
  }
  return std::optional<VxlanState>(std::move(st));
}

Status NetlinkLinkManager::create_vxlan(const VxlanDevice& d) {
  nl_sock* sock = state_->sock.get();
  LinkHandle link(rtnl_link_vxlan_alloc());
  if (!link) return fail(ErrorCode::Internal, "netlink: out of memory building a VXLAN link");
  rtnl_link_set_name(link.get(), d.name.c_str());
  rtnl_link_vxlan_set_id(link.get(), d.vni);
  rtnl_link_vxlan_set_port(link.get(), d.port);
  rtnl_link_vxlan_set_learning(link.get(), 0);
  auto local = nl::make_addr(d.local);
  rtnl_link_vxlan_set_local(link.get(), local.get());
  auto mac = nl::make_addr(d.mac);
  rtnl_link_set_addr(link.get(), mac.get());
  if (d.mtu != 0) rtnl_link_set_mtu(link.get(), d.mtu);
  if (int err = rtnl_link_add(sock, link.get(), NLM_F_CREATE | NLM_F_EXCL); err < 0) {
    return nl::error("create VXLAN device " + d.name, err);
  }
  // Until the marker is on, nothing would ever delete this device: undo on any failure.
  Cleanup undo([&] { nl::delete_link_quietly(sock, d.name); });
  FED_ASSIGN_OR_RETURN(auto created, get_link(sock, d.name));
  if (!created) return fail(ErrorCode::Internal, "VXLAN device " + d.name + " vanished");
  LinkHandle change(rtnl_link_alloc());
  rtnl_link_set_ifalias(change.get(), std::string(kOwnedLinkAlias).c_str());
  rtnl_link_set_flags(change.get(), IFF_UP);
  if (int err = rtnl_link_change(sock, created.get(), change.get(), 0); err < 0) {
    return nl::error("mark and bring up " + d.name, err);
  }
  RtAddrHandle addr(rtnl_addr_alloc());
  rtnl_addr_set_ifindex(addr.get(), rtnl_link_get_ifindex(created.get()));
  rtnl_addr_set_family(addr.get(), AF_INET);
  auto overlay = nl::make_addr(d.address, d.prefix_length);
  rtnl_addr_set_local(addr.get(), overlay.get());
  if (int err = rtnl_addr_add(sock, addr.get(), 0); err < 0) {
    return nl::error("add address " + d.address.str() + " to " + d.name, err);
  }
  FED_TRY(set_loose_rp_filter(d.name));
  undo.cancel();
  return ok();
}

Status NetlinkLinkManager::delete_vxlan(std::string_view name) {
  FED_ASSIGN_OR_RETURN(auto st, vxlan(name));
  if (!st) return fail(ErrorCode::NotFound, "VXLAN device " + std::string(name) + " not found");
  if (!st->owned) {
    return fail(ErrorCode::Conflict, "link " + std::string(name) +
                                         " was not created by fed-agent (no alias marker); "
                                         "left in place");
  }
  FED_ASSIGN_OR_RETURN(auto link, get_link(state_->sock.get(), name));
  if (!link) return ok();
  if (int err = rtnl_link_delete(state_->sock.get(), link.get()); err < 0) {
    return nl::error("delete link " + std::string(name), err);
  }
  return ok();
}

Status NetlinkLinkManager::add_fdb(std::string_view device, const FdbEntry& e) {
  FED_ASSIGN_OR_RETURN(auto n, state_->neighbour(device, AF_BRIDGE, e.remote));
  rtnl_neigh_set_flags(n.get(), NTF_SELF);
  auto mac = nl::make_addr(e.mac);
  rtnl_neigh_set_lladdr(n.get(), mac.get());
  if (int err = rtnl_neigh_add(state_->sock.get(), n.get(), NLM_F_CREATE | NLM_F_APPEND); err < 0) {
    return nl::error(
        "add fdb " + e.mac.str() + " dst " + e.remote.str() + " on " + std::string(device), err);
  }
  return ok();
}

Status NetlinkLinkManager::delete_fdb(std::string_view device, const FdbEntry& e) {
  FED_ASSIGN_OR_RETURN(auto n, state_->neighbour(device, AF_BRIDGE, e.remote));
  rtnl_neigh_set_flags(n.get(), NTF_SELF);
  auto mac = nl::make_addr(e.mac);
  rtnl_neigh_set_lladdr(n.get(), mac.get());
  if (int err = rtnl_neigh_delete(state_->sock.get(), n.get(), 0); err < 0) {
    return nl::error("delete fdb " + e.mac.str() + " on " + std::string(device), err);
  }
  return ok();
}

Status NetlinkLinkManager::add_neighbour(std::string_view device, const NeighbourEntry& e) {
  FED_ASSIGN_OR_RETURN(auto n, state_->neighbour(device, AF_INET, e.ip));
  auto mac = nl::make_addr(e.mac);
  rtnl_neigh_set_lladdr(n.get(), mac.get());
  if (int err = rtnl_neigh_add(state_->sock.get(), n.get(), NLM_F_CREATE | NLM_F_REPLACE);
      err < 0) {
    return nl::error("add neighbour " + e.ip.str() + " on " + std::string(device), err);
  }
  return ok();
}

Status NetlinkLinkManager::delete_neighbour(std::string_view device, const NeighbourEntry& e) {
  FED_ASSIGN_OR_RETURN(auto n, state_->neighbour(device, AF_INET, e.ip));
  if (int err = rtnl_neigh_delete(state_->sock.get(), n.get(), 0); err < 0) {
    return nl::error("delete neighbour " + e.ip.str() + " on " + std::string(device), err);
  }
  return ok();
}

Result<bool> NetlinkLinkManager::link_exists(std::string_view name) {
  FED_ASSIGN_OR_RETURN(auto link, get_link(state_->sock.get(), name));
  return static_cast<bool>(link);
}

Result<std::vector<ConnectedNetwork>> NetlinkLinkManager::connected_networks() {
  nl_sock* sock = state_->sock.get();
  nl_cache* raw = nullptr;
  if (int err = rtnl_link_alloc_cache(sock, AF_UNSPEC, &raw); err < 0) {
    return nl::error("list links", err);
  }
  nl::CacheHandle links(raw);
  raw = nullptr;
  if (int err = rtnl_addr_alloc_cache(sock, &raw); err < 0) return nl::error("list addresses", err);
  nl::CacheHandle addrs(raw);
  std::vector<ConnectedNetwork> out;
  for (nl_object* o = nl_cache_get_first(addrs.get()); o; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    if (rtnl_addr_get_family(a) != AF_INET) continue;
    LinkHandle l(rtnl_link_get(links.get(), rtnl_addr_get_ifindex(a)));
    if (!l || (rtnl_link_get_flags(l.get()) & IFF_UP) == 0) continue;
    auto ip = nl::to_ipv4(rtnl_addr_get_local(a));
    const int length = rtnl_addr_get_prefixlen(a);
    if (!ip || length <= 0 || length >= 32) continue;
    out.push_back(ConnectedNetwork{Cidr::containing(*ip, static_cast<std::uint8_t>(length)),
                                   rtnl_link_get_name(l.get())});
  }
  return out;
}

// Generic links (the tunnel's TUN device) --------------------------------------------------

Result<std::optional<LinkState>> NetlinkLinkManager::link(std::string_view name) {
  nl_sock* sock = state_->sock.get();
  FED_ASSIGN_OR_RETURN(auto l, get_link(sock, name));
  if (!l) return std::optional<LinkState>();
  LinkState st;
  const char* kind = rtnl_link_get_type(l.get());
  st.kind = kind != nullptr ? kind : "";
  const char* alias = rtnl_link_get_ifalias(l.get());
  st.owned = alias != nullptr && std::string_view(alias) == kOwnedLinkAlias;
  st.up = (rtnl_link_get_flags(l.get()) & IFF_UP) != 0;
  st.mtu = rtnl_link_get_mtu(l.get());
  const int idx = rtnl_link_get_ifindex(l.get());
  nl_cache* raw = nullptr;
  if (int err = rtnl_addr_alloc_cache(sock, &raw); err < 0) return nl::error("list addresses", err);
  nl::CacheHandle addrs(raw);
  for (nl_object* o = nl_cache_get_first(addrs.get()); o; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    if (rtnl_addr_get_ifindex(a) != idx || rtnl_addr_get_family(a) != AF_INET) continue;
    nl_addr* local = rtnl_addr_get_local(a);
    if (auto ip = nl::to_ipv4(local)) {
      st.addresses.push_back(
          LinkAddress{*ip, static_cast<std::uint8_t>(nl_addr_get_prefixlen(local))});
    }
  }
  return std::optional<LinkState>(std::move(st));
}

Status NetlinkLinkManager::set_link(std::string_view name, const LinkSettings& settings) {
  nl_sock* sock = state_->sock.get();
  FED_ASSIGN_OR_RETURN(auto l, get_link(sock, name));
  if (!l) return fail(ErrorCode::NotFound, "link " + std::string(name) + " not found");
  LinkHandle change(rtnl_link_alloc());
  if (!change) return fail(ErrorCode::Internal, "netlink: out of memory building a link change");
  if (settings.mtu) rtnl_link_set_mtu(change.get(), *settings.mtu);
  if (settings.up == true) rtnl_link_set_flags(change.get(), IFF_UP);
  if (settings.up == false) rtnl_link_unset_flags(change.get(), IFF_UP);
  if (settings.mark_owned) {
    rtnl_link_set_ifalias(change.get(), std::string(kOwnedLinkAlias).c_str());
  }
  if (int err = rtnl_link_change(sock, l.get(), change.get(), 0); err < 0) {
    return nl::error("change link " + std::string(name), err);
  }
  return ok();
}

namespace {

// An rtnl_addr for `address` on link `idx`.
RtAddrHandle link_addr(int idx, const LinkAddress& address) {
  RtAddrHandle addr(rtnl_addr_alloc());
  if (!addr) return addr;
  rtnl_addr_set_ifindex(addr.get(), idx);
  rtnl_addr_set_family(addr.get(), AF_INET);
  auto local = nl::make_addr(address.ip, address.prefix_length);
  rtnl_addr_set_local(addr.get(), local.get());
  return addr;
}

std::string addr_text(const LinkAddress& a, std::string_view link) {
  return a.ip.str() + "/" + std::to_string(a.prefix_length) + " on " + std::string(link);
}

}  // namespace

Status NetlinkLinkManager::add_address(std::string_view name, const LinkAddress& address) {
  nl_sock* sock = state_->sock.get();
  FED_ASSIGN_OR_RETURN(int idx, nl::ifindex(sock, name));
  auto addr = link_addr(idx, address);
  if (!addr) return fail(ErrorCode::Internal, "netlink: out of memory building an address");
  if (int err = rtnl_addr_add(sock, addr.get(), 0); err < 0 && -err != NLE_EXIST) {
    return nl::error("add address " + addr_text(address, name), err);
  }
  return ok();
}

Status NetlinkLinkManager::delete_address(std::string_view name, const LinkAddress& address) {
  nl_sock* sock = state_->sock.get();
  FED_ASSIGN_OR_RETURN(int idx, nl::ifindex(sock, name));
  auto addr = link_addr(idx, address);
  if (!addr) return fail(ErrorCode::Internal, "netlink: out of memory building an address");
  if (int err = rtnl_addr_delete(sock, addr.get(), 0); err < 0) {
    return nl::error("delete address " + addr_text(address, name), err);
  }
  return ok();
}

Status NetlinkLinkManager::delete_owned_link(std::string_view name) {
  nl_sock* sock = state_->sock.get();
  FED_ASSIGN_OR_RETURN(auto st, link(name));
  if (!st) return fail(ErrorCode::NotFound, "link " + std::string(name) + " not found");
  if (!st->owned) {
    return fail(ErrorCode::Conflict, "link " + std::string(name) +
                                         " was not marked by fed-agent (no alias marker); "
                                         "left in place");
  }
  FED_ASSIGN_OR_RETURN(auto l, get_link(sock, name));
  if (!l) return ok();
  if (int err = rtnl_link_delete(sock, l.get()); err < 0 && !nl::is_not_found(err)) {
    return nl::error("delete link " + std::string(name), err);
  }
  return ok();
}

}  // namespace fed::os
