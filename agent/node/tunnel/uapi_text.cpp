#include "agent/node/tunnel/uapi_text.hpp"

#include <fmt/format.h>

#include <charconv>

namespace fed::tunnel {
namespace {

template <typename T>
Result<T> parse_number(std::string_view key, std::string_view value) {
  T out{};
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return fail(ErrorCode::Internal,
                fmt::format("wireguard UAPI: {}={} is not a number", key, value));
  }
  return out;
}

Status check_errno(std::string_view value) {
  FED_ASSIGN_OR_RETURN(const long long e, parse_number<long long>("errno", value));
  if (e != 0) {
    return fail(ErrorCode::Internal,
                fmt::format("wireguard UAPI answered errno={} (the daemon refused the request; "
                            "its log says why)",
                            e));
  }
  return ok();
}

// Applies one key=value line of a peer section to `peer`.
Status apply_peer_field(UapiPeer& peer, std::string_view key, std::string_view value) {
  if (key == "endpoint") {
    peer.endpoint = std::string(value);
  } else if (key == "allowed_ip") {
    peer.allowed_ips.emplace_back(value);
  } else if (key == "persistent_keepalive_interval") {
    FED_ASSIGN_OR_RETURN(peer.keepalive_seconds, parse_number<std::uint32_t>(key, value));
  } else if (key == "last_handshake_time_sec") {
    FED_ASSIGN_OR_RETURN(peer.last_handshake_sec, parse_number<std::int64_t>(key, value));
  } else if (key == "rx_bytes") {
    FED_ASSIGN_OR_RETURN(peer.rx_bytes, parse_number<std::uint64_t>(key, value));
  } else if (key == "tx_bytes") {
    FED_ASSIGN_OR_RETURN(peer.tx_bytes, parse_number<std::uint64_t>(key, value));
  }
  return ok();
}

// Splits `text` into its lines up to the first empty one; Invalid when it never ends.
Result<std::vector<std::string_view>> request_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string_view::npos) break;
    const std::string_view line = text.substr(start, end - start);
    if (line.empty()) return lines;
    lines.push_back(line);
    start = end + 1;
  }
  return fail(ErrorCode::Invalid, "wireguard UAPI: the request does not end with an empty line");
}

// Applies one key=value line of a peer section of a set request to `peer`.
Status apply_peer_change(UapiPeerChange& peer, std::string_view key, std::string_view value) {
  if (key == "remove" && value == "true") {
    peer.remove = true;
  } else if (key == "endpoint") {
    peer.endpoint = std::string(value);
  } else if (key == "persistent_keepalive_interval") {
    FED_ASSIGN_OR_RETURN(peer.keepalive_seconds, parse_number<std::uint32_t>(key, value));
  } else if (key == "replace_allowed_ips" && value == "true") {
    peer.allowed_ips.emplace();
  } else if (key == "allowed_ip" && peer.allowed_ips) {
    peer.allowed_ips->emplace_back(value);
  } else {
    // allowed_ip without replace_allowed_ips adds to the list, which UapiPeerChange cannot say.
    // The key only: the value of an unknown key may be a secret (preshared_key).
    return fail(ErrorCode::Invalid,
                fmt::format("wireguard UAPI: peer key \"{}\" is not supported here (the agent "
                            "replaces allowed IPs and sets no preshared key)",
                            key));
  }
  return ok();
}

}  // namespace

Result<UapiSet> parse_set_request(std::string_view text) {
  FED_ASSIGN_OR_RETURN(const auto lines, request_lines(text));
  if (lines.empty() || lines.front() != "set=1") {
    return fail(ErrorCode::Invalid, "wireguard UAPI: a set request starts with set=1");
  }
  UapiSet set;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto line = lines[i];
    const auto eq = line.find('=');
    const auto key = line.substr(0, eq);
    const auto value = eq == std::string_view::npos ? std::string_view() : line.substr(eq + 1);
    if (eq == std::string_view::npos) {
      return fail(ErrorCode::Invalid,
                  fmt::format("wireguard UAPI: line {} of the set request has no '=' (want "
                              "key=value)",
                              i + 1));
    }
    if (key == "public_key") {
      FED_ASSIGN_OR_RETURN(auto k, WgKey::from_hex(value, "wireguard UAPI public_key"));
      set.peers.push_back(UapiPeerChange{.public_key = k,
                                         .remove = false,
                                         .endpoint = std::nullopt,
                                         .keepalive_seconds = std::nullopt,
                                         .allowed_ips = std::nullopt});
    } else if (!set.peers.empty()) {
      FED_TRY(apply_peer_change(set.peers.back(), key, value));
    } else if (key == "private_key") {
      FED_ASSIGN_OR_RETURN(set.private_key, WgKey::from_hex(value, "wireguard UAPI private_key"));
    } else if (key == "listen_port") {
      FED_ASSIGN_OR_RETURN(set.listen_port, parse_number<std::uint16_t>(key, value));
    } else {
      return fail(ErrorCode::Invalid,
                  fmt::format("wireguard UAPI: device key \"{}\" is not supported here", key));
    }
  }
  return set;
}

std::string format_get_response(const UapiDevice& device) {
  std::string out;
  if (device.private_key) out += "private_key=" + device.private_key->hex() + "\n";
  out += fmt::format("listen_port={}\n", device.listen_port);
  for (const auto& p : device.peers) {
    out += "public_key=" + p.public_key.hex() + "\n";
    if (!p.endpoint.empty()) out += "endpoint=" + p.endpoint + "\n";
    out += fmt::format(
        "last_handshake_time_sec={}\nlast_handshake_time_nsec=0\ntx_bytes={}\nrx_bytes={}\n"
        "persistent_keepalive_interval={}\n",
        p.last_handshake_sec, p.tx_bytes, p.rx_bytes, p.keepalive_seconds);
    for (const auto& ip : p.allowed_ips) out += "allowed_ip=" + ip + "\n";
  }
  out += "errno=0\n\n";
  return out;
}

bool uapi_response_complete(std::string_view text) {
  const auto pos = text.rfind("errno=");
  return pos != std::string_view::npos && (pos == 0 || text[pos - 1] == '\n') &&
         text.ends_with("\n\n");
}

Result<UapiDevice> parse_get_response(std::string_view text) {
  UapiDevice device;
  bool saw_errno = false;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) break;  // the empty line ends the answer
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      return fail(ErrorCode::Internal,
                  fmt::format("wireguard UAPI: malformed line \"{}\" (want key=value)", line));
    }
    const auto key = line.substr(0, eq);
    const auto value = line.substr(eq + 1);
    if (key == "errno") {
      FED_TRY(check_errno(value));
      saw_errno = true;
    } else if (key == "public_key") {
      FED_ASSIGN_OR_RETURN(auto k, WgKey::from_hex(value, "wireguard UAPI public_key"));
      UapiPeer peer;
      peer.public_key = k;
      device.peers.push_back(std::move(peer));
    } else if (!device.peers.empty()) {
      FED_TRY(apply_peer_field(device.peers.back(), key, value));
    } else if (key == "private_key") {
      FED_ASSIGN_OR_RETURN(auto k, WgKey::from_hex(value, "wireguard UAPI private_key"));
      if (!k.is_zero()) device.private_key = k;
    } else if (key == "listen_port") {
      FED_ASSIGN_OR_RETURN(device.listen_port, parse_number<std::uint16_t>(key, value));
    }
  }
  if (!saw_errno) {
    return fail(ErrorCode::Internal, "wireguard UAPI: the answer to get=1 ended without errno=");
  }
  return device;
}

Status parse_set_response(std::string_view text) {
  FED_ASSIGN_OR_RETURN(auto device, parse_get_response(text));
  (void)device;  // a set answer carries nothing but errno
  return ok();
}

std::string format_set_request(const UapiSet& set) {
  std::string out = "set=1\n";
  if (set.private_key) out += "private_key=" + set.private_key->hex() + "\n";
  if (set.listen_port) out += fmt::format("listen_port={}\n", *set.listen_port);
  for (const auto& p : set.peers) {
    out += "public_key=" + p.public_key.hex() + "\n";
    if (p.remove) {
      out += "remove=true\n";
      continue;
    }
    if (p.endpoint) out += "endpoint=" + *p.endpoint + "\n";
    if (p.keepalive_seconds) {
      out += fmt::format("persistent_keepalive_interval={}\n", *p.keepalive_seconds);
    }
    if (p.allowed_ips) {
      out += "replace_allowed_ips=true\n";
      for (const auto& ip : *p.allowed_ips) out += "allowed_ip=" + ip + "\n";
    }
  }
  out += "\n";
  return out;
}

}  // namespace fed::tunnel
