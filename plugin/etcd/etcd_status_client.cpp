#include "plugin/etcd/etcd_status_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

#include "shared/raii/fd.hpp"

namespace fed::plugin {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxAnswer = 1 << 20;  // a status document is a few KiB

Error connect_error(const std::string& path, int err) {
  const std::string where = "etcd proxy status socket " + path + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
      return Error(ErrorCode::Unavailable,
                   where +
                       " (is fed-agent etcd-proxy running on this node? pass its "
                       "--status-socket path with --socket)");
    case ECONNREFUSED:
      return Error(ErrorCode::Unavailable,
                   where + " (the proxy that made it is gone; restart fed-agent etcd-proxy)");
    case EACCES:
    case EPERM:
      return Error(ErrorCode::Permission,
                   where + " (the socket is root's: run sudo kubectl fed etcd status)");
    case ENOTSOCK:
      return Error(ErrorCode::Invalid, where + " (--socket must name the proxy's unix socket)");
    default:
      return Error(ErrorCode::Unavailable, where);
  }
}

}  // namespace

Result<std::string> read_status_socket(const std::string& path, std::chrono::milliseconds timeout) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    return fail(ErrorCode::Invalid, "--socket \"" + path + "\": give the path of the etcd " +
                                        "proxy's status socket (at most " +
                                        std::to_string(sizeof addr.sun_path - 1) + " bytes)");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  // connect() to a regular file says "connection refused", which would blame a dead proxy.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISSOCK(st.st_mode)) {
    return Unexpected(connect_error(path, ENOTSOCK));
  }
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return Unexpected(connect_error(path, errno));
  // A unix stream connect completes or fails at once; only the read needs a deadline.
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return Unexpected(connect_error(path, errno));
  }
  const auto deadline = Clock::now() + timeout;
  std::string answer;
  char buf[8192];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd.get(), POLLIN, 0};
    const int ready = left <= 0 ? 0 : ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      return fail(ErrorCode::Unavailable,
                  "etcd proxy status socket " + path + " did not answer within " +
                      std::to_string(timeout.count()) +
                      " ms (the proxy may be stuck; check its log, or raise --request-timeout)");
    }
    const ssize_t n = ready < 0 ? -1 : ::recv(fd.get(), buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Unexpected(connect_error(path, errno));
    if (n == 0) break;  // the proxy closes after the document
    answer.append(buf, static_cast<std::size_t>(n));
    if (answer.size() > kMaxAnswer) {
      return fail(ErrorCode::Internal, "etcd proxy status socket " + path +
                                           " sent more than 1 MiB; is --socket the etcd "
                                           "proxy's status socket?");
    }
  }
  return answer;
}

Result<etcd::ProxyStatus> parse_status_answer(const std::string& path, const std::string& text) {
  // The proxy answers a peer it refuses with {"error": "..."} instead of a document.
  try {
    const auto j = nlohmann::json::parse(text);
    if (j.is_object() && j.contains("error") && j["error"].is_string()) {
      return fail(ErrorCode::Permission,
                  "etcd proxy on " + path + " refused: " + j["error"].get<std::string>());
    }
  } catch (const nlohmann::json::exception&) {
    // Not JSON at all: parse_proxy_status says so below.
  }
  auto status = etcd::parse_proxy_status(text);
  if (!status) {
    return fail(ErrorCode::Internal,
                "etcd proxy status socket " + path + " sent an answer kubectl-fed cannot read (" +
                    status.error().message() +
                    "); check that --socket is the proxy's and that fed-agent and kubectl-fed "
                    "are the same version");
  }
  return status;
}

}  // namespace fed::plugin
