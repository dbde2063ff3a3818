#pragma once
// A request to the API server that upgrades its connection (SPDY/3.1 or WebSocket: pods/exec,
// pods/attach, pods/portforward), kept as raw bytes afterwards. The REST transport cannot do
// this (libcurl ends a transfer at 101), so libcurl only connects here (CONNECT_ONLY) — with the
// RestConfig's endpoint, TLS and credentials — and the request and response heads are written
// and read as bytes. Used by the virtual kubelet to relay `kubectl exec` to a member.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shared/kube/rest_config.hpp"
#include "shared/result/result.hpp"

namespace fed::kube {

struct UpgradeRequest {
  std::string method = "POST";
  std::string path_and_query;  // "/api/v1/namespaces/ns/pods/p/exec?command=ls&stdout=true"
  std::vector<std::pair<std::string, std::string>> headers;  // Upgrade, Connection, protocols
};

class UpgradeStream final {
 public:
  // Connects, sends `request` with the config's credentials and reads the response head within
  // `timeout`. Unavailable when the server cannot be reached; any HTTP answer is a success,
  // with status() telling whether the connection was upgraded (101).
  static Result<std::unique_ptr<UpgradeStream>> open(const RestConfig& config,
                                                     const UpgradeRequest& request,
                                                     std::chrono::milliseconds timeout);
  ~UpgradeStream();
  UpgradeStream(const UpgradeStream&) = delete;
  UpgradeStream& operator=(const UpgradeStream&) = delete;

  int status() const { return status_; }
  // The response head as received, status line to the blank line included.
  const std::string& head() const { return head_; }
  // Bytes that arrived after the head (the start of the body or of the upgraded stream).
  std::string take_leftover() { return std::exchange(leftover_, std::string()); }

  enum class Read { Data, Idle, Closed };
  // Appends what can be read without waiting: Data, Idle (nothing ready) or Closed (end of
  // stream or error).
  Read read_available(std::string& out);
  // Writes all of `data`, waiting for the socket at most `timeout`; false on error or timeout.
  bool write(std::string_view data, std::chrono::milliseconds timeout);
  // The socket, to poll for readability (drain with read_available until Idle first: TLS may
  // hold decrypted bytes the socket no longer shows).
  int fd() const { return fd_; }

 private:
  UpgradeStream() = default;
  struct Handle;
  std::unique_ptr<Handle> handle_;
  int fd_ = -1;
  int status_ = 0;
  std::string head_;
  std::string leftover_;
};

}  // namespace fed::kube
