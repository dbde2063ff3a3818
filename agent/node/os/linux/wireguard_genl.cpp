#include "agent/node/os/linux/wireguard_genl.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <linux/time_types.h>
#include <linux/wireguard.h>
#include <netinet/in.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <charconv>
#include <chrono>
#include <cstring>
#include <thread>

#include "agent/node/os/linux/nl_common.hpp"

namespace fed::os::wg_genl {
namespace {

using tunnel::UapiDevice;
using tunnel::UapiPeer;
using tunnel::UapiPeerChange;
using tunnel::WgKey;

void free_msg(nl_msg* m) {
  nlmsg_free(m);
}
using MsgHandle = CHandle<nl_msg, free_msg>;

// How long a port held by an exiting process is waited for (wireguard-go exits within
// milliseconds of losing its TUN link).
constexpr auto kPortReleaseWait = std::chrono::seconds(3);

// A generic netlink socket and the family's id, resolved on it.
struct Family {
  nl::SocketHandle sock;
  int id = 0;
};

Result<Family> open_family() {
  nl::SocketHandle sock(nl_socket_alloc());
  if (!sock) return fail(ErrorCode::Internal, "netlink: out of memory allocating a socket");
  if (int err = genl_connect(sock.get()); err < 0) {
    return nl::error("connect a generic netlink socket", err);
  }
  const int id = genl_ctrl_resolve(sock.get(), WG_GENL_NAME);
  if (id < 0) {
    return fail(ErrorCode::Unavailable,
                "the kernel has no WireGuard (generic netlink family \"wireguard\" not found): "
                "load its module (modprobe wireguard) or use the wireguard-go back end");
  }
  return Family{std::move(sock), id};
}

Result<MsgHandle> new_message(const Family& family, int flags, std::uint8_t cmd,
                              std::string_view interface) {
  MsgHandle msg(nlmsg_alloc());
  if (!msg) return fail(ErrorCode::Internal, "netlink: out of memory building a message");
  if (genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family.id, 0, flags, cmd,
                  WG_GENL_VERSION) == nullptr ||
      nla_put_string(msg.get(), WGDEVICE_A_IFNAME, std::string(interface).c_str()) < 0) {
    return fail(ErrorCode::Internal, "netlink: WireGuard message header does not fit");
  }
  return msg;
}

WgKey key_from(const nlattr* a) {
  WgKey k;
  if (nla_len(a) == static_cast<int>(k.bytes.size())) {
    std::memcpy(k.bytes.data(), nla_data(a), k.bytes.size());
  }
  return k;
}

// "192.0.2.2:51820" or "[2001:db8::2]:51820", as UAPI writes endpoints.
std::string endpoint_text(const nlattr* a) {
  char host[INET6_ADDRSTRLEN] = {};
  if (nla_len(a) == sizeof(sockaddr_in)) {
    sockaddr_in sa{};
    std::memcpy(&sa, nla_data(a), sizeof sa);
    if (sa.sin_family != AF_INET || !inet_ntop(AF_INET, &sa.sin_addr, host, sizeof host)) return "";
    return fmt::format("{}:{}", host, ntohs(sa.sin_port));
  }
  if (nla_len(a) == sizeof(sockaddr_in6)) {
    sockaddr_in6 sa{};
    std::memcpy(&sa, nla_data(a), sizeof sa);
    if (sa.sin6_family != AF_INET6 || !inet_ntop(AF_INET6, &sa.sin6_addr, host, sizeof host)) {
      return "";
    }
    return fmt::format("[{}]:{}", host, ntohs(sa.sin6_port));
  }
  return "";
}

void read_allowed_ips(nlattr* list, UapiPeer& peer) {
  nlattr* a = nullptr;
  int rem = 0;
  nla_for_each_nested(a, list, rem) {
    nlattr* tb[WGALLOWEDIP_A_MAX + 1] = {};
    if (nla_parse_nested(tb, WGALLOWEDIP_A_MAX, a, nullptr) < 0 || !tb[WGALLOWEDIP_A_FAMILY] ||
        !tb[WGALLOWEDIP_A_IPADDR] || !tb[WGALLOWEDIP_A_CIDR_MASK]) {
      continue;
    }
    const int family = nla_get_u16(tb[WGALLOWEDIP_A_FAMILY]);
    char host[INET6_ADDRSTRLEN] = {};
    if (!inet_ntop(family, nla_data(tb[WGALLOWEDIP_A_IPADDR]), host, sizeof host)) continue;
    peer.allowed_ips.push_back(fmt::format("{}/{}", host, nla_get_u8(tb[WGALLOWEDIP_A_CIDR_MASK])));
  }
}

// One peer of a dump message. A peer with many allowed IPs continues in the next message under
// the same public key; its later parts only add allowed IPs.
void read_peer(nlattr* attr, UapiDevice& device) {
  nlattr* tb[WGPEER_A_MAX + 1] = {};
  if (nla_parse_nested(tb, WGPEER_A_MAX, attr, nullptr) < 0 || !tb[WGPEER_A_PUBLIC_KEY]) return;
  const WgKey key = key_from(tb[WGPEER_A_PUBLIC_KEY]);
  if (device.peers.empty() || device.peers.back().public_key != key) {
    UapiPeer fresh;
    fresh.public_key = key;
    device.peers.push_back(std::move(fresh));
  }
  UapiPeer& peer = device.peers.back();
  if (tb[WGPEER_A_ENDPOINT]) peer.endpoint = endpoint_text(tb[WGPEER_A_ENDPOINT]);
  if (tb[WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL]) {
    peer.keepalive_seconds = nla_get_u16(tb[WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL]);
  }
  if (tb[WGPEER_A_LAST_HANDSHAKE_TIME] &&
      nla_len(tb[WGPEER_A_LAST_HANDSHAKE_TIME]) == sizeof(__kernel_timespec)) {
    __kernel_timespec ts{};
    std::memcpy(&ts, nla_data(tb[WGPEER_A_LAST_HANDSHAKE_TIME]), sizeof ts);
    peer.last_handshake_sec = ts.tv_sec;
  }
  if (tb[WGPEER_A_RX_BYTES]) peer.rx_bytes = nla_get_u64(tb[WGPEER_A_RX_BYTES]);
  if (tb[WGPEER_A_TX_BYTES]) peer.tx_bytes = nla_get_u64(tb[WGPEER_A_TX_BYTES]);
  if (tb[WGPEER_A_ALLOWEDIPS]) read_allowed_ips(tb[WGPEER_A_ALLOWEDIPS], peer);
}

struct Dump {
  UapiDevice device;
  bool malformed = false;
};

int on_dump_message(nl_msg* msg, void* arg) {
  auto* dump = static_cast<Dump*>(arg);
  nlattr* tb[WGDEVICE_A_MAX + 1] = {};
  if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, WGDEVICE_A_MAX, nullptr) < 0) {
    dump->malformed = true;
    return NL_STOP;
  }
  UapiDevice& d = dump->device;
  if (tb[WGDEVICE_A_PRIVATE_KEY]) {
    const WgKey k = key_from(tb[WGDEVICE_A_PRIVATE_KEY]);
    if (!k.is_zero()) d.private_key = k;
  }
  if (tb[WGDEVICE_A_LISTEN_PORT]) d.listen_port = nla_get_u16(tb[WGDEVICE_A_LISTEN_PORT]);
  if (tb[WGDEVICE_A_PEERS]) {
    nlattr* p = nullptr;
    int rem = 0;
    nla_for_each_nested(p, tb[WGDEVICE_A_PEERS], rem) {
      read_peer(p, d);
    }
  }
  return NL_OK;
}

Status send_and_wait(const Family& family, MsgHandle msg, const std::string& what) {
  if (int err = nl_send_auto(family.sock.get(), msg.get()); err < 0) return nl::error(what, err);
  if (int err = nl_wait_for_ack(family.sock.get()); err < 0) return nl::error(what, err);
  return ok();
}

// Starts a nested attribute. The kernel parses WireGuard's nests strictly, which requires the
// NLA_F_NESTED flag that libnl's nla_nest_start does not set by itself.
nlattr* open_nest(nl_msg* msg, int type) {
  return nla_nest_start(msg, type | NLA_F_NESTED);
}

// Writes `text` ("192.0.2.2:51820", "[2001:db8::2]:51820") as the sockaddr the kernel takes.
Status put_endpoint(nl_msg* msg, std::string_view text) {
  const auto colon = text.rfind(':');
  std::uint16_t port = 0;
  const char* port_end = text.data() + text.size();
  if (colon == std::string_view::npos ||
      std::from_chars(text.data() + colon + 1, port_end, port).ptr != port_end) {
    return fail(ErrorCode::Invalid,
                fmt::format("endpoint \"{}\" is not address:port (e.g. 192.0.2.2:51820)", text));
  }
  std::string host(text.substr(0, colon));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    sockaddr_in6 sa{};
    sa.sin6_family = AF_INET6;
    sa.sin6_port = htons(port);
    if (inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &sa.sin6_addr) == 1) {
      return nla_put(msg, WGPEER_A_ENDPOINT, sizeof sa, &sa) < 0
                 ? fail(ErrorCode::Internal, "netlink: endpoint does not fit")
                 : ok();
    }
  } else {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) == 1) {
      return nla_put(msg, WGPEER_A_ENDPOINT, sizeof sa, &sa) < 0
                 ? fail(ErrorCode::Internal, "netlink: endpoint does not fit")
                 : ok();
    }
  }
  return fail(ErrorCode::Invalid,
              fmt::format("endpoint \"{}\" has no IPv4 or bracketed IPv6 address", text));
}

// Writes one allowed IP ("10.250.2.0/24", "2001:db8::/64").
Status put_allowed_ip(nl_msg* msg, std::string_view text) {
  const auto slash = text.find('/');
  std::uint8_t length = 0;
  const char* end = text.data() + text.size();
  const std::string host(text.substr(0, slash));
  in6_addr addr{};
  const int family = host.find(':') == std::string::npos ? AF_INET : AF_INET6;
  if (slash == std::string_view::npos ||
      std::from_chars(text.data() + slash + 1, end, length).ptr != end ||
      length > (family == AF_INET ? 32 : 128) || inet_pton(family, host.c_str(), &addr) != 1) {
    return fail(ErrorCode::Invalid,
                fmt::format("allowed IP \"{}\" is not address/length (e.g. 10.250.2.0/24)", text));
  }
  nlattr* nest = open_nest(msg, 0);
  if (nest == nullptr || nla_put_u16(msg, WGALLOWEDIP_A_FAMILY, family) < 0 ||
      nla_put(msg, WGALLOWEDIP_A_IPADDR, family == AF_INET ? 4 : 16, &addr) < 0 ||
      nla_put_u8(msg, WGALLOWEDIP_A_CIDR_MASK, length) < 0) {
    return fail(ErrorCode::Internal, "netlink: allowed IPs do not fit in one message");
  }
  nla_nest_end(msg, nest);
  return ok();
}

Status put_peer(nl_msg* msg, const UapiPeerChange& p) {
  nlattr* peers = open_nest(msg, WGDEVICE_A_PEERS);
  nlattr* peer = peers != nullptr ? open_nest(msg, 0) : nullptr;
  std::uint32_t flags = 0;
  if (p.remove) flags |= WGPEER_F_REMOVE_ME;
  if (!p.remove && p.allowed_ips) flags |= WGPEER_F_REPLACE_ALLOWEDIPS;
  if (peer == nullptr ||
      nla_put(msg, WGPEER_A_PUBLIC_KEY, p.public_key.bytes.size(), p.public_key.bytes.data()) < 0 ||
      nla_put_u32(msg, WGPEER_A_FLAGS, flags) < 0) {
    return fail(ErrorCode::Internal, "netlink: peer does not fit in one message");
  }
  if (!p.remove) {
    if (p.endpoint) FED_TRY(put_endpoint(msg, *p.endpoint));
    if (p.keepalive_seconds) {
      if (*p.keepalive_seconds > 65535) {
        return fail(ErrorCode::Invalid,
                    fmt::format("persistent keepalive {} s is over WireGuard's 65535",
                                *p.keepalive_seconds));
      }
      if (nla_put_u16(msg, WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL,
                      static_cast<std::uint16_t>(*p.keepalive_seconds)) < 0) {
        return fail(ErrorCode::Internal, "netlink: keepalive does not fit");
      }
    }
    if (p.allowed_ips) {
      nlattr* list = open_nest(msg, WGPEER_A_ALLOWEDIPS);
      if (list == nullptr) return fail(ErrorCode::Internal, "netlink: allowed IPs do not fit");
      for (const auto& ip : *p.allowed_ips) FED_TRY(put_allowed_ip(msg, ip));
      nla_nest_end(msg, list);
    }
  }
  nla_nest_end(msg, peer);
  nla_nest_end(msg, peers);
  return ok();
}

}  // namespace

bool family_available() {
  return open_family().has_value();
}

Result<UapiDevice> get_device(std::string_view interface) {
  FED_ASSIGN_OR_RETURN(auto family, open_family());
  const std::string what = "read WireGuard device " + std::string(interface);
  FED_ASSIGN_OR_RETURN(auto msg, new_message(family, NLM_F_DUMP, WG_CMD_GET_DEVICE, interface));
  Dump dump;
  nl_sock* sock = family.sock.get();
  // Dump messages can be larger than libnl's default page-sized buffer: peek at each size.
  nl_socket_enable_msg_peek(sock);
  nl_socket_modify_cb(sock, NL_CB_VALID, NL_CB_CUSTOM, on_dump_message, &dump);
  if (int err = nl_send_auto(sock, msg.get()); err < 0) return nl::error(what, err);
  if (int err = nl_recvmsgs_default(sock); err < 0) return nl::error(what, err);
  if (dump.malformed) return fail(ErrorCode::Internal, what + ": malformed answer");
  return std::move(dump.device);
}

Status set_device(std::string_view interface, const tunnel::UapiSet& set) {
  FED_ASSIGN_OR_RETURN(auto family, open_family());
  const std::string name(interface);
  if (set.private_key || set.listen_port) {
    const std::string what = "set key and port of WireGuard device " + name;
    // The kernel answers EADDRINUSE (libnl: "Object exists") while another socket holds the
    // port. Right after a switch from wireguard-go that is the daemon still exiting from the
    // deletion of its TUN link, so wait for it a little before giving up.
    const auto deadline = std::chrono::steady_clock::now() + kPortReleaseWait;
    for (;;) {
      FED_ASSIGN_OR_RETURN(auto msg, new_message(family, 0, WG_CMD_SET_DEVICE, interface));
      if ((set.private_key &&
           nla_put(msg.get(), WGDEVICE_A_PRIVATE_KEY, set.private_key->bytes.size(),
                   set.private_key->bytes.data()) < 0) ||
          (set.listen_port &&
           nla_put_u16(msg.get(), WGDEVICE_A_LISTEN_PORT, *set.listen_port) < 0)) {
        return fail(ErrorCode::Internal, "netlink: WireGuard device fields do not fit");
      }
      int err = nl_send_auto(family.sock.get(), msg.get());
      if (err >= 0) err = nl_wait_for_ack(family.sock.get());
      if (err >= 0) break;
      const bool port_taken = set.listen_port && err == -NLE_EXIST;
      if (!port_taken) return nl::error(what, err);
      if (std::chrono::steady_clock::now() >= deadline) {
        return fail(ErrorCode::Unavailable,
                    fmt::format("{}: UDP port {} is in use by another socket; free it or choose "
                                "another --tunnel-port",
                                what, *set.listen_port));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  // One message per peer keeps every message far below any size limit, whatever the number of
  // peers and allowed IPs; the order (removals first) is the set's.
  for (const auto& p : set.peers) {
    const std::string what =
        fmt::format("{} WireGuard peer {} on {}", p.remove ? "remove" : "configure",
                    p.public_key.base64(), name);
    FED_ASSIGN_OR_RETURN(auto msg, new_message(family, 0, WG_CMD_SET_DEVICE, interface));
    if (auto s = put_peer(msg.get(), p); !s) return Unexpected(s.error().with_context(what));
    FED_TRY(send_and_wait(family, std::move(msg), what));
  }
  return ok();
}

}  // namespace fed::os::wg_genl
