// fed_tcp_probe: a tiny TCP tool for the datapath tests and benchmarks, run inside pod
// namespaces.
//   serve  --port P --name N        reply "N saw-src=<peer address> got=<payload>" per connection
//   connect --to IP --port P --payload X [--timeout-ms T]   print the reply; exit 1 on failure
//   sink   --port P                  read and discard; reply with the byte count
//   send   --to IP --port P --seconds S   stream for S seconds; print "bytes=<n> seconds=<s>"
//   rr     --to IP --port P --count N     N connections with one request/reply each (against
//                                         serve); print p50/p99 microseconds per connection
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

std::map<std::string, std::string> parse(int argc, char** argv) {
  std::map<std::string, std::string> out;
  for (int i = 2; i + 1 < argc; i += 2) out[argv[i]] = argv[i + 1];
  return out;
}

int listen_on(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 64) != 0) {
    std::perror("listen");
    std::exit(2);
  }
  return fd;
}

int connect_to(const std::string& ip, int port, int timeout_ms) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  if (rc != 0 && errno != EINPROGRESS) return -1;
  pollfd p{fd, POLLOUT, 0};
  if (::poll(&p, 1, timeout_ms) != 1) return -1;
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) return -1;
  int flags = 0;  // back to blocking with a receive timeout
  ::ioctl(fd, FIONBIO, &flags);
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

std::string read_line(int fd) {
  std::string s;
  char c;
  while (::read(fd, &c, 1) == 1 && c != '\n') s.push_back(c);
  return s;
}

int serve(const std::string& name, int port) {
  int lfd = listen_on(port);
  for (;;) {
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    int fd = ::accept4(lfd, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::thread([fd, peer, name] {
      char ip[INET_ADDRSTRLEN];
      ::inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof ip);
      std::string reply = name + " saw-src=" + ip + " got=" + read_line(fd) + "\n";
      (void)!::write(fd, reply.data(), reply.size());
      ::close(fd);
    }).detach();
  }
}

int sink(int port) {
  int lfd = listen_on(port);
  for (;;) {
    int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::thread([fd] {
      std::vector<char> buf(1 << 16);
      long long total = 0;
      for (ssize_t n; (n = ::read(fd, buf.data(), buf.size())) > 0;) total += n;
      std::string reply = "bytes=" + std::to_string(total) + "\n";
      (void)!::write(fd, reply.data(), reply.size());
      ::close(fd);
    }).detach();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fed_tcp_probe serve|connect|sink|send --key value ...\n");
    return 2;
  }
  std::string mode = argv[1];
  auto o = parse(argc, argv);
  int port = o.count("--port") ? std::atoi(o["--port"].c_str()) : 8080;
  if (mode == "serve") return serve(o["--name"], port);
  if (mode == "sink") return sink(port);
  int timeout = o.count("--timeout-ms") ? std::atoi(o["--timeout-ms"].c_str()) : 2000;
  if (mode == "rr") {
    int count = o.count("--count") ? std::atoi(o["--count"].c_str()) : 100;
    std::vector<double> us;
    for (int i = 0; i < count; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      int c = connect_to(o["--to"], port, timeout);
      if (c < 0) return 1;
      (void)!::write(c, "rr\n", 3);
      if (read_line(c).empty()) return 1;
      ::close(c);
      us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(us.begin(), us.end());
    std::printf("count=%d p50_us=%.0f p99_us=%.0f\n", count, us[us.size() / 2],
                us[us.size() * 99 / 100]);
    return 0;
  }
  int fd = connect_to(o["--to"], port, timeout);
  if (fd < 0) {
    std::printf("connect-failed to=%s\n", o["--to"].c_str());
    return 1;
  }
  if (mode == "connect") {
    std::string payload = o["--payload"] + "\n";
    (void)!::write(fd, payload.data(), payload.size());
    std::string reply = read_line(fd);
    std::printf("%s\n", reply.c_str());
    return reply.empty() ? 1 : 0;
  }
  if (mode == "send") {
    double seconds = o.count("--seconds") ? std::atof(o["--seconds"].c_str()) : 2.0;
    std::vector<char> buf(1 << 16, 'x');
    auto start = std::chrono::steady_clock::now();
    long long sent = 0;
    while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(seconds)) {
      ssize_t n = ::write(fd, buf.data(), buf.size());
      if (n <= 0) return 1;
      sent += n;
    }
    ::shutdown(fd, SHUT_WR);
    std::string reply = read_line(fd);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("bytes=%lld seconds=%.3f gbit_per_s=%.3f receiver=%s\n", sent, took,
                static_cast<double>(sent) * 8 / took / 1e9, reply.c_str());
    return 0;
  }
  return 2;
}
