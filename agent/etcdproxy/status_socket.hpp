#pragma once
// StatusSocket: the etcd proxy's local, authenticated control channel. It serves one JSON
// document per connection (etcd/proxy_status.hpp) on a unix stream socket and reads nothing:
// there is no verb a client could send, so the channel cannot redirect etcd traffic.
//
// Why a unix socket and not another TCP port: the issue asks for local-only and authenticated
// with no unauthenticated socket. A TCP port is reachable by every local user (and, misbound,
// by the network) and would need TLS client certificates to authenticate; a unix socket is
// local by construction and the kernel authenticates the peer twice for free:
//   1. the file's mode is 0600 and it belongs to the proxy's user, so connect() by anyone else
//      fails with EACCES (listen() runs only after the chmod, so no one connects in between);
//   2. each accepted connection's SO_PEERCRED uid must be root's or the proxy's own, in case
//      the directory or the mode was loosened by hand; other peers get an error document.

#include <sys/types.h>

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>

#include "shared/raii/fd.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy {

// Whether a peer with uid `peer` may read the status of a proxy running as `self`.
inline bool peer_allowed(uid_t peer, uid_t self) {
  return peer == 0 || peer == self;
}

class StatusSocket final {
 public:
  // Renders the document for one connection; called on the socket's thread.
  using Render = std::function<std::string()>;

  // Creates the parent directory if missing, replaces a stale socket left by a dead proxy,
  // binds `path` with mode 0600 and starts serving. Invalid: the path is not absolute, too
  // long, or names something that is not a socket; Unavailable: a live process serves it.
  static Result<std::unique_ptr<StatusSocket>> start(std::string path, Render render);
  ~StatusSocket();  // stop()
  StatusSocket(const StatusSocket&) = delete;
  StatusSocket& operator=(const StatusSocket&) = delete;

  // Stops serving, joins the thread and removes the socket file if it is still ours.
  // Idempotent.
  void stop();

  const std::string& path() const { return path_; }

 private:
  StatusSocket(std::string path, Render render, Fd listener, ino_t inode);
  void serve(std::stop_token stop);
  void answer(Fd client);

  const std::string path_;
  const Render render_;
  Fd listener_;
  const ino_t inode_;  // so stop() does not remove a socket another proxy bound since
  std::jthread thread_;
};

}  // namespace fed::etcdproxy
