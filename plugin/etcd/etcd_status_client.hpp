#pragma once
// The client end of the etcd proxy's status socket (agent/etcdproxy/status_socket.hpp): connect,
// read the one document the proxy writes, check it. Errors are one line naming the fix.

#include <chrono>
#include <string>

#include "shared/etcd/proxy_status.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// Everything the proxy wrote before closing, read within `timeout`. Unavailable: no socket or
// nothing listening (is the proxy running, is --socket right?); Permission: the socket is
// root's (run as root).
Result<std::string> read_status_socket(const std::string& path, std::chrono::milliseconds timeout);

// `text` as the proxy's status document. Permission when the proxy refused this user; Internal
// when it is not a status document (another program's socket, or a proxy of another version).
Result<etcd::ProxyStatus> parse_status_answer(const std::string& path, const std::string& text);

}  // namespace fed::plugin
