#pragma once
// Helpers shared by the libnl back ends: a connected NETLINK_ROUTE socket, error mapping and
// conversions between libnl addresses and the domain's value types. libnl types are only
// forward-declared here; the .cpp files include libnl.

#include <optional>
#include <string>
#include <string_view>

#include "agent/node/os/net.hpp"
#include "shared/raii/c_handle.hpp"
#include "shared/result/result.hpp"

struct nl_sock;
struct nl_addr;
struct nl_cache;
struct rtnl_link;

namespace fed::os::nl {

void free_socket(nl_sock* s);
void put_addr(nl_addr* a);
void free_cache(nl_cache* c);
void put_link(rtnl_link* l);

using SocketHandle = CHandle<nl_sock, free_socket>;
using AddrHandle = CHandle<nl_addr, put_addr>;
using CacheHandle = CHandle<nl_cache, free_cache>;
using LinkHandle = CHandle<rtnl_link, put_link>;

// A socket connected to NETLINK_ROUTE in the calling thread's network namespace.
Result<SocketHandle> connect_route_socket();

// An error for libnl's negative return `nlerr` while doing `what`, coded for the work queue.
Error error(std::string_view what, int nlerr);
// True when `nlerr` says the object does not exist.
bool is_not_found(int nlerr);

AddrHandle make_addr(Ipv4 ip);                       // /32
AddrHandle make_addr(Ipv4 ip, std::uint8_t length);  // address with a prefix length
AddrHandle make_addr(const Cidr& cidr);
AddrHandle make_addr(const MacAddr& mac);

std::optional<Ipv4> to_ipv4(const nl_addr* a);
// The prefix of `a`; nullopt for a missing address or an empty (0-length) prefix.
std::optional<Cidr> to_cidr(const nl_addr* a);
std::optional<MacAddr> to_mac(const nl_addr* a);

// Deletes the link `name`, ignoring failure: the undo of a link made moments ago whose set-up
// failed before it carried the agent's marker.
void delete_link_quietly(nl_sock* sock, const std::string& name);

// Interface index of `name`; NotFound names the interface.
Result<int> ifindex(nl_sock* sock, std::string_view name);

}  // namespace fed::os::nl
