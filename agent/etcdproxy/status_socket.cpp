#include "agent/etcdproxy/status_socket.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace fed::etcdproxy {
namespace {

Error errno_error(ErrorCode code, const std::string& what, int err) {
  return Error(code, what + ": " + std::strerror(err));
}

Result<sockaddr_un> unix_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.front() != '/') {
    return fail(ErrorCode::Invalid, "--status-socket \"" + path +
                                        "\": give an absolute path, e.g. " +
                                        "/run/kubectl-fed/etcd-proxy.sock");
  }
  if (path.size() >= sizeof addr.sun_path) {
    return fail(ErrorCode::Invalid, "--status-socket " + path + " is longer than a unix socket " +
                                        "path may be (" + std::to_string(sizeof addr.sun_path - 1) +
                                        " bytes); choose a shorter one");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

// Makes way for bind(): nothing there, or a socket no process listens on any more (a proxy
// that was killed leaves its file behind). Anything else is refused, never deleted.
Status clear_stale(const std::string& path, const sockaddr_un& addr) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return ok();
    return Unexpected(errno_error(ErrorCode::Internal, "--status-socket " + path, errno));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return fail(ErrorCode::Invalid, "--status-socket " + path +
                                        " exists and is not a socket; remove it or choose "
                                        "another path");
  }
  Fd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe) return Unexpected(errno_error(ErrorCode::Internal, "socket", errno));
  if (::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
    return fail(ErrorCode::Unavailable,
                "--status-socket " + path +
                    ": another process serves it (a second etcd proxy?); stop it or give this "
                    "proxy another --status-socket");
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Unexpected(
        errno_error(ErrorCode::Permission, "remove stale status socket " + path, errno));
  }
  return ok();
}

// Writes all of `data` or gives up at the socket's send timeout (a client that does not read
// must not hold the status thread).
void send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

Result<std::unique_ptr<StatusSocket>> StatusSocket::start(std::string path, Render render) {
  FED_ASSIGN_OR_RETURN(const sockaddr_un addr, unix_address(path));
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  std::filesystem::create_directories(parent, ec);
  if (ec) {
    return fail(ErrorCode::Permission, "--status-socket: create directory " + parent.string() +
                                           ": " + ec.message() + " (the proxy runs as root)");
  }
  FED_TRY(clear_stale(path, addr));
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) return Unexpected(errno_error(ErrorCode::Internal, "socket", errno));
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return Unexpected(
        errno_error(errno == EADDRINUSE ? ErrorCode::Unavailable : ErrorCode::Permission,
                    "--status-socket: bind " + path, errno));
  }
  // Mode first, listen second: until listen() every connect() is refused, so no peer can slip
  // in while the file still has the umask's mode.
  struct stat st {};
  if (::chmod(path.c_str(), 0600) != 0 || ::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    return Unexpected(errno_error(ErrorCode::Permission, "--status-socket: chmod " + path, err));
  }
  if (::listen(fd.get(), 16) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    return Unexpected(errno_error(ErrorCode::Internal, "--status-socket: listen " + path, err));
  }
  std::unique_ptr<StatusSocket> s(
      new StatusSocket(std::move(path), std::move(render), std::move(fd), st.st_ino));
  s->thread_ = std::jthread([raw = s.get()](std::stop_token stop) { raw->serve(stop); });
  spdlog::info("etcd-proxy: status on unix socket {} (mode 0600, root or uid {} only)", s->path_,
               ::geteuid());
  return s;
}

StatusSocket::StatusSocket(std::string path, Render render, Fd listener, ino_t inode)
    : path_(std::move(path)),
      render_(std::move(render)),
      listener_(std::move(listener)),
      inode_(inode) {}

StatusSocket::~StatusSocket() {
  stop();
}

void StatusSocket::stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  if (!listener_) return;
  listener_.reset();
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == inode_) {
    ::unlink(path_.c_str());
  }
}

void StatusSocket::serve(std::stop_token stop) {
  while (!stop.stop_requested()) {
    pollfd p{listener_.get(), POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;  // the timeout is how stop is noticed
    Fd client(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!client) continue;
    answer(std::move(client));
  }
}

void StatusSocket::answer(Fd client) {
  const timeval limit{1, 0};
  ::setsockopt(client.get(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  ucred peer{};
  socklen_t len = sizeof peer;
  if (::getsockopt(client.get(), SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 ||
      !peer_allowed(peer.uid, ::geteuid())) {
    // The peer could connect, so someone loosened the file's mode; say so to both sides.
    spdlog::warn("etcd-proxy: refused status to pid {} uid {} on {} (only root or uid {})",
                 peer.pid, peer.uid, path_, ::geteuid());
    send_all(client.get(), "{\"error\":\"uid " + std::to_string(peer.uid) +
                               " may not read the etcd proxy status; run it as root (sudo)\"}\n");
    return;
  }
  send_all(client.get(), render_());
}

}  // namespace fed::etcdproxy
