#include "agent/node/os/linux/nl_common.hpp"

#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <sys/socket.h>

#include <array>
#include <cstring>

namespace fed::os::nl {

void free_socket(nl_sock* s) {
  nl_socket_free(s);
}
void put_addr(nl_addr* a) {
  nl_addr_put(a);
}
void free_cache(nl_cache* c) {
  nl_cache_free(c);
}
void put_link(rtnl_link* l) {
  rtnl_link_put(l);
}

void delete_link_quietly(nl_sock* sock, const std::string& name) {
  LinkHandle link(rtnl_link_alloc());
  if (!link) return;
  rtnl_link_set_name(link.get(), name.c_str());
  rtnl_link_delete(sock, link.get());
}

Result<SocketHandle> connect_route_socket() {
  SocketHandle sock(nl_socket_alloc());
  if (!sock) return fail(ErrorCode::Internal, "netlink: out of memory allocating a socket");
  if (int err = nl_connect(sock.get(), NETLINK_ROUTE); err < 0) {
    return error("connect NETLINK_ROUTE socket", err);
  }
  return sock;
}

bool is_not_found(int nlerr) {
  int e = nlerr < 0 ? -nlerr : nlerr;
  return e == NLE_OBJ_NOTFOUND || e == NLE_NODEV || e == NLE_NOADDR;
}

Error error(std::string_view what, int nlerr) {
  int e = nlerr < 0 ? -nlerr : nlerr;
  ErrorCode code = ErrorCode::Internal;
  switch (e) {
    case NLE_PERM:
      code = ErrorCode::Permission;
      break;
    case NLE_EXIST:
      code = ErrorCode::Conflict;
      break;
    case NLE_OBJ_NOTFOUND:
    case NLE_NODEV:
    case NLE_NOADDR:
      code = ErrorCode::NotFound;
      break;
    case NLE_AGAIN:
    case NLE_BUSY:
    case NLE_NOMEM:
      code = ErrorCode::Unavailable;
      break;
    default:
      break;
  }
  std::string msg = "netlink: " + std::string(what) + ": " + nl_geterror(e);
  if (code == ErrorCode::Permission) msg += " (the agent needs CAP_NET_ADMIN)";
  return Error(code, msg);
}

AddrHandle make_addr(Ipv4 ip) {
  return make_addr(ip, 32);
}

AddrHandle make_addr(Ipv4 ip, std::uint8_t length) {
  std::array<unsigned char, 4> buf{
      static_cast<unsigned char>(ip.value >> 24), static_cast<unsigned char>(ip.value >> 16),
      static_cast<unsigned char>(ip.value >> 8), static_cast<unsigned char>(ip.value)};
  AddrHandle a(nl_addr_build(AF_INET, buf.data(), buf.size()));
  if (a) nl_addr_set_prefixlen(a.get(), length);
  return a;
}

AddrHandle make_addr(const Cidr& cidr) {
  return make_addr(cidr.network, cidr.length);
}

AddrHandle make_addr(const MacAddr& mac) {
  return AddrHandle(nl_addr_build(AF_LLC, mac.bytes.data(), mac.bytes.size()));
}

std::optional<Ipv4> to_ipv4(const nl_addr* a) {
  if (a == nullptr || nl_addr_get_family(a) != AF_INET || nl_addr_get_len(a) != 4) {
    return std::nullopt;
  }
  const auto* b = static_cast<const unsigned char*>(nl_addr_get_binary_addr(a));
  return Ipv4{(std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) |
              (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]}};
}

std::optional<Cidr> to_cidr(const nl_addr* a) {
  auto ip = to_ipv4(a);
  if (!ip) return std::nullopt;
  unsigned len = nl_addr_get_prefixlen(a);
  if (len == 0 || len > 32) return std::nullopt;
  return Cidr::containing(*ip, static_cast<std::uint8_t>(len));
}

std::optional<MacAddr> to_mac(const nl_addr* a) {
  if (a == nullptr || nl_addr_get_len(a) != 6) return std::nullopt;
  MacAddr mac;
  std::memcpy(mac.bytes.data(), nl_addr_get_binary_addr(a), 6);
  return mac;
}

Result<int> ifindex(nl_sock* sock, std::string_view name) {
  rtnl_link* raw = nullptr;
  std::string n(name);
  int err = rtnl_link_get_kernel(sock, 0, n.c_str(), &raw);
  if (err < 0) return error("look up interface " + n, err);
  int idx = rtnl_link_get_ifindex(raw);
  rtnl_link_put(raw);
  return idx;
}

}  // namespace fed::os::nl
