#include "agent/path_probe/path_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "agent/etcdproxy/socket_util.hpp"
#include "agent/roles/signals.hpp"
#include "shared/fedapi/probe_answer.hpp"
#include "shared/raii/fd.hpp"

namespace fed::probe {
namespace {

using clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kAttempt{3000};
// How long a connection may take to send the token (one short line from a program).
constexpr std::chrono::milliseconds kTokenWait{2000};
// Longer than any token or answer line: a peer sending more without a newline is cut off.
constexpr std::size_t kMaxLine = 1024;

std::string peer_address(const sockaddr_storage& peer) {
  char text[INET6_ADDRSTRLEN] = {};
  if (peer.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(peer);
    ::inet_ntop(AF_INET, &in.sin_addr, text, sizeof(text));
  } else if (peer.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(peer);
    ::inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof(text));
  }
  return text;
}

// One line (up to '\n' or EOF, at most kMaxLine bytes) within `timeout`.
Result<std::string> read_line(const Fd& fd, std::chrono::milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  std::string line;
  char buf[256];
  while (line.find('\n') == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    pollfd p{fd.get(), POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::max<long>(left.count(), 0)));
    if (n <= 0) return fail(ErrorCode::Unavailable, "connected, but no answer came back");
    const ssize_t got = ::read(fd.get(), buf, sizeof(buf));
    if (got < 0) return fail(ErrorCode::Unavailable, std::string("read: ") + std::strerror(errno));
    if (got == 0) break;
    line.append(buf, static_cast<std::size_t>(got));
    if (line.size() > kMaxLine && line.find('\n') == std::string::npos) {
      return fail(ErrorCode::Unavailable,
                  "a line longer than " + std::to_string(kMaxLine) + " bytes came back");
    }
  }
  if (auto nl = line.find('\n'); nl != std::string::npos) line.resize(nl);
  return line;
}

// The listener's line on a fresh connection, after sending `token` when there is one.
Result<std::string> ask_listener(const Fd& fd, const std::string& token) {
  if (!token.empty()) {
    const std::string first = token + "\n";
    if (::write(fd.get(), first.data(), first.size()) != static_cast<ssize_t>(first.size())) {
      return fail(ErrorCode::Unavailable,
                  std::string("sending the token: ") + std::strerror(errno));
    }
  }
  return read_line(fd, kAttempt);
}

// Whether `line` is `token`, in time independent of where they differ.
bool token_matches(const std::string& line, const std::string& token) {
  if (line.size() != token.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    diff |= static_cast<unsigned char>(line[i] ^ token[i]);
  }
  return diff == 0;
}

}  // namespace

Status listen(std::uint16_t port, const std::string& id, std::chrono::milliseconds deadline,
              const std::string& token) {
  // As a container's PID 1 the probe gets no default action for SIGTERM: without this, a pod
  // of it takes its whole grace period to delete.
  auto signals = agent::ShutdownSignals::install();
  FED_ASSIGN_OR_RETURN(auto sock, etcdproxy::listen_tcp({"0.0.0.0", port}));
  // On stdout, line-buffered: the pod's log says it serves and whom it answered (kubectl logs
  // through a virtual node is checked against these lines).
  std::printf("probe %s listening on port %u\n", id.c_str(), static_cast<unsigned>(port));
  std::fflush(stdout);
  const auto end = clock::now() + deadline;
  while (clock::now() < end) {
    pollfd p[2] = {{sock.get(), POLLIN, 0}, {signals ? signals->fd() : -1, POLLIN, 0}};
    if (::poll(p, 2, 500) <= 0) continue;
    if (p[1].revents != 0) return ok();  // SIGTERM or SIGINT: stop serving
    if (p[0].revents == 0) continue;
    sockaddr_storage peer{};
    socklen_t len = sizeof(peer);
    Fd conn(::accept4(sock.get(), reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC));
    if (!conn) continue;
    if (!token.empty()) {
      auto sent = read_line(conn, kTokenWait);
      if (!sent || !token_matches(*sent, token)) {
        std::printf("probe %s refused %s (no token)\n", id.c_str(), peer_address(peer).c_str());
        std::fflush(stdout);
        continue;
      }
    }
    const std::string line = fedapi::probe_answer_line(id, peer_address(peer));
    // One short write to a fresh socket; a peer that went away is not our failure.
    (void)!::write(conn.get(), line.data(), line.size());
    std::printf("probe %s answered %s\n", id.c_str(), peer_address(peer).c_str());
    std::fflush(stdout);
  }
  return ok();
}

Result<std::string> dial(const std::string& address, std::uint16_t port,
                         std::chrono::milliseconds timeout, const std::string& token) {
  const auto end = clock::now() + timeout;
  std::string last = "no attempt was made";
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - clock::now());
    if (left.count() <= 0) break;
    auto fd = etcdproxy::dial_tcp({address, port}, std::min(left, kAttempt));
    if (fd) {
      auto line = ask_listener(*fd, token);
      if (line && fedapi::parse_probe_answer(*line)) return line;
      last = line ? fedapi::parse_probe_answer(*line).error().message() : line.error().message();
    } else {
      last = fd.error().message();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return fail(ErrorCode::Unavailable, "no answer from " + address + ":" + std::to_string(port) +
                                          " in " + std::to_string(timeout.count() / 1000) +
                                          "s: " + last);
}

Status idle(std::chrono::milliseconds deadline) {
  auto signals = agent::ShutdownSignals::install();
  if (!signals) {
    std::this_thread::sleep_for(deadline);  // no signalfd: the deadline alone ends it
  } else {
    (void)signals->wait(deadline);  // a signal or the deadline: either way, done
  }
  return ok();
}

}  // namespace fed::probe
