// fed-delay-proxy: a constant-delay TCP proxy standing in for `tc netem delay` (this kernel has
// no sch_netem). etcd listens on an internal port and advertises the proxy's port; each chunk
// read is held until read time + delay, then written, so with the proxy in front of every
// member's client port (mode resp: member->client delayed) and peer port (mode both) every
// byte a member sends is delayed once, as netem on the member's egress would.
//
//   fed-delay-proxy --listen 10.199.0.1:2379 --target 10.199.0.1:12379 --delay-ms 15 --mode resp
//
// With --delay-file PATH the delay is the number of ms in that file, re-read every 100 ms, so a
// harness can change one member's delay without breaking its connections (fed's classifier
// dataset moves a delay onto whichever member leads). Chunks keep their order when it drops.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "shared/raii/fd.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Chunk {
  Clock::time_point due;
  std::string bytes;  // empty = end of stream
};

// One direction: a reader stamps chunks, a writer releases them when due.
class Lane {
 public:
  void push(Chunk c) {
    std::lock_guard lock(mu_);
    q_.push_back(std::move(c));
    cv_.notify_one();
  }
  Chunk pop() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !q_.empty(); });
    Chunk c = std::move(q_.front());
    q_.pop_front();
    return c;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Chunk> q_;
};

sockaddr_in parse(const std::string& hp) {
  sockaddr_in a{};
  const auto colon = hp.rfind(':');
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(std::atoi(hp.c_str() + colon + 1)));
  if (colon == std::string::npos ||
      inet_pton(AF_INET, hp.substr(0, colon).c_str(), &a.sin_addr) != 1) {
    std::fprintf(stderr, "fed-delay-proxy: bad address %s\n", hp.c_str());
    std::exit(2);
  }
  return a;
}

// The current delay in ms, shared by every connection; --delay-file rewrites it.
std::atomic<long> g_delay_ms{0};

void watch_delay_file(const std::string& path) {
  for (;;) {
    std::ifstream in(path);
    long ms = 0;
    if (in >> ms && ms >= 0) g_delay_ms.store(ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// Copies `from` to `to`, holding each chunk for the current delay when `delayed`.
void relay(int from, int to, bool delayed) {
  Lane lane;
  std::thread writer([&] {
    bool ok = true;
    for (;;) {
      Chunk c = lane.pop();
      std::this_thread::sleep_until(c.due);
      if (c.bytes.empty()) break;
      const char* p = c.bytes.data();
      std::size_t left = c.bytes.size();
      while (ok && left > 0) {
        const ssize_t n = ::send(to, p, left, MSG_NOSIGNAL);
        if (n <= 0)
          ok = false;
        else
          p += n, left -= static_cast<std::size_t>(n);
      }
      if (!ok) ::shutdown(from, SHUT_RD);  // stop the reader too
    }
    ::shutdown(to, SHUT_WR);
  });
  char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::recv(from, buf, sizeof(buf), 0);
    if (n <= 0) break;
    const auto delay = std::chrono::milliseconds(delayed ? g_delay_ms.load() : 0);
    lane.push({Clock::now() + delay, std::string(buf, static_cast<std::size_t>(n))});
  }
  lane.push({Clock::now() + std::chrono::milliseconds(delayed ? g_delay_ms.load() : 0), {}});
  writer.join();
}

void serve(fed::Fd client, sockaddr_in target, bool both) {
  fed::Fd up(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!up || ::connect(up.get(), reinterpret_cast<sockaddr*>(&target), sizeof(target)) != 0) {
    return;
  }
  const int one = 1;
  ::setsockopt(up.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ::setsockopt(client.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  std::thread to_target([&] { relay(client.get(), up.get(), both); });
  relay(up.get(), client.get(), true);
  to_target.join();
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen, target, mode = "resp", delay_file;
  long delay_ms = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--listen")
      listen = argv[i + 1];
    else if (k == "--target")
      target = argv[i + 1];
    else if (k == "--delay-ms")
      delay_ms = std::atol(argv[i + 1]);
    else if (k == "--mode")
      mode = argv[i + 1];
    else if (k == "--delay-file")
      delay_file = argv[i + 1];
  }
  if (listen.empty() || target.empty() || (mode != "resp" && mode != "both")) {
    std::fprintf(stderr,
                 "usage: fed-delay-proxy --listen IP:PORT --target IP:PORT "
                 "(--delay-ms N | --delay-file PATH) --mode resp|both\n");
    return 2;
  }
  sockaddr_in la = parse(listen);
  const sockaddr_in ta = parse(target);
  fed::Fd l(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int one = 1;
  ::setsockopt(l.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(l.get(), reinterpret_cast<sockaddr*>(&la), sizeof(la)) != 0 ||
      ::listen(l.get(), 256) != 0) {
    std::fprintf(stderr, "fed-delay-proxy: cannot listen on %s: %s\n", listen.c_str(),
                 std::strerror(errno));
    return 1;
  }
  g_delay_ms.store(delay_ms);
  if (!delay_file.empty()) std::thread(watch_delay_file, delay_file).detach();
  for (;;) {
    fed::Fd c(::accept4(l.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!c) continue;
    std::thread([c = std::move(c), ta, both = mode == "both"]() mutable {
      serve(std::move(c), ta, both);
    }).detach();
  }
}
