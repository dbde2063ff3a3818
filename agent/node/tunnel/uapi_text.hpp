#pragma once
// The WireGuard cross-platform UAPI text protocol (wireguard.com/xplatform) that wireguard-go
// serves on its unix socket: parsing a "get=1" answer and writing a "set=1" request, and for the
// kernel back end (agent/node/os/linux/kernel_wireguard), which serves the same protocol over
// generic netlink, the other two directions. Pure text in, values out; the socket is
// agent/node/os/linux/uapi_socket's.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/node/tunnel/wg_key.hpp"
#include "shared/result/result.hpp"

namespace fed::tunnel {

// One peer as "get=1" reports it. Endpoint and allowed IPs stay in the daemon's canonical text
// ("203.0.113.2:51820", "10.0.0.0/24"): the planner compares them with its own canonical text.
struct UapiPeer {
  WgKey public_key;
  std::string endpoint;                  // "" when the peer has none yet
  std::vector<std::string> allowed_ips;  // in the daemon's order
  std::uint32_t keepalive_seconds = 0;   // persistent keepalive; 0 = off
  std::int64_t last_handshake_sec = 0;   // Unix time; 0 = never
  std::uint64_t rx_bytes = 0;
  std::uint64_t tx_bytes = 0;
};

// The device as "get=1" reports it.
struct UapiDevice {
  std::optional<WgKey> private_key;  // none when no key is set
  std::uint16_t listen_port = 0;
  std::vector<UapiPeer> peers;
};

// Changes to one peer in a "set=1" request. Fields left empty are not sent (left as they are).
struct UapiPeerChange {
  WgKey public_key;
  bool remove = false;  // remove the peer; every other field is ignored
  std::optional<std::string> endpoint;
  std::optional<std::uint32_t> keepalive_seconds;
  std::optional<std::vector<std::string>> allowed_ips;  // replaces the whole list

  friend bool operator==(const UapiPeerChange&, const UapiPeerChange&) = default;
};

// A "set=1" request: only what must change.
struct UapiSet {
  std::optional<WgKey> private_key;
  std::optional<std::uint16_t> listen_port;
  std::vector<UapiPeerChange> peers;  // removals first, then additions and updates

  bool empty() const { return !private_key && !listen_port && peers.empty(); }
};

// The whole "get=1" request: it has no arguments.
inline constexpr std::string_view kUapiGetRequest = "get=1\n\n";

// Parses a complete "get=1" answer (key=value lines, then "errno=N" and an empty line). A
// non-zero errno is an Internal error carrying it; an unknown key is ignored (newer daemons add
// fields), a malformed line is Internal and quotes it.
Result<UapiDevice> parse_get_response(std::string_view text);

// Checks the answer to a "set=1" request ("errno=0" and an empty line).
Status parse_set_response(std::string_view text);

// The request text for `set`, ending with the empty line that submits it.
std::string format_set_request(const UapiSet& set);

// Parses a "set=1" request as format_set_request writes it (the other side of the protocol):
// device keys, then one section per public_key. Invalid quotes the offending line (never a
// private key); keys the agent never sends (fwmark, preshared_key, replace_peers,
// protocol_version) are refused rather than silently dropped.
Result<UapiSet> parse_set_request(std::string_view text);

// The answer to "get=1" for `device`, ending with "errno=0" and the empty line.
std::string format_get_response(const UapiDevice& device);

// True once `text` holds a whole answer (it ends with the empty line after "errno=").
bool uapi_response_complete(std::string_view text);

}  // namespace fed::tunnel
