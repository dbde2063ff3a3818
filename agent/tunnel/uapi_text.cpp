#include "tunnel/uapi_text.hpp"

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

}  // namespace

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
