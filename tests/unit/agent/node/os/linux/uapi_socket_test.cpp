#include "agent/node/os/linux/uapi_socket.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

using fed::os::UapiSocket;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A one-connection unix socket server in a temporary directory, played by `script`: it gets
// the accepted descriptor and answers as a daemon would (or would not).
class FakeDaemon {
 public:
  explicit FakeDaemon(std::function<void(int)> script) {
    std::string tmpl = (fs::temp_directory_path() / "fed-uapi-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
    path_ = (dir_ / "wg0.sock").string();
    listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listener_, 1) == 0);
    thread_ = std::thread([this, script = std::move(script)] {
      int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      script(fd);
      ::close(fd);
    });
  }
  ~FakeDaemon() {
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
    fs::remove_all(dir_);
  }
  const std::string& path() const { return path_; }

 private:
  fs::path dir_;
  std::string path_;
  int listener_ = -1;
  std::thread thread_;
};

// Reads the request up to its closing empty line.
std::string read_request(int fd) {
  std::string req;
  char c;
  while (!req.ends_with("\n\n") && ::read(fd, &c, 1) == 1) req.push_back(c);
  return req;
}

void write_all(int fd, std::string_view s) {
  // CHECK, not REQUIRE: this runs on the fake's thread, where a throw would terminate.
  CHECK(::write(fd, s.data(), s.size()) == static_cast<ssize_t>(s.size()));
}

}  // namespace

TEST_CASE("an answer written in pieces is read up to its closing empty line") {
  std::string seen;
  {
    FakeDaemon daemon([&](int fd) {
      seen = read_request(fd);
      write_all(fd, "listen_port=51820\ner");
      std::this_thread::sleep_for(20ms);
      write_all(fd, "rno=0\n");
      std::this_thread::sleep_for(20ms);
      write_all(fd, "\n");
      std::this_thread::sleep_for(100ms);  // keeps the connection open, as wireguard-go does
    });
    auto sock = UapiSocket::connect(daemon.path(), 2000ms);
    REQUIRE(sock);
    auto answer = sock->exchange("get=1\n\n");
    REQUIRE(answer);
    CHECK(*answer == "listen_port=51820\nerrno=0\n\n");
  }
  CHECK(seen == "get=1\n\n");  // after the join: the fake's thread wrote it
}

TEST_CASE("a daemon that closes early or never answers is Unavailable") {
  {
    FakeDaemon daemon([](int fd) {
      read_request(fd);
      write_all(fd, "listen_port=1\n");
    });
    auto sock = UapiSocket::connect(daemon.path(), 2000ms);
    REQUIRE(sock);
    auto answer = sock->exchange("get=1\n\n");
    REQUIRE_FALSE(answer);
    CHECK(answer.error().code() == fed::ErrorCode::Unavailable);
    CHECK(answer.error().message().find("closed the connection") != std::string::npos);
  }
  {
    FakeDaemon daemon([](int fd) {
      read_request(fd);
      std::this_thread::sleep_for(300ms);
    });
    auto sock = UapiSocket::connect(daemon.path(), 100ms);
    REQUIRE(sock);
    auto answer = sock->exchange("get=1\n\n");
    REQUIRE_FALSE(answer);
    CHECK(answer.error().code() == fed::ErrorCode::Unavailable);
    CHECK(answer.error().message().find("did not answer within 100 ms") != std::string::npos);
  }
}

TEST_CASE("no socket is NotFound; a socket nobody listens on is Unavailable") {
  auto missing = UapiSocket::connect("/nonexistent-fed-dir/wg0.sock", 100ms);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == fed::ErrorCode::NotFound);
  CHECK(missing.error().message().find("/nonexistent-fed-dir/wg0.sock") != std::string::npos);

  std::string tmpl = (fs::temp_directory_path() / "fed-uapi-XXXXXX").string();
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  const std::string path = tmpl + "/stale.sock";
  {
    // Bound, never listened on, then closed: what a crashed daemon leaves behind.
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    ::close(fd);
  }
  auto stale = UapiSocket::connect(path, 100ms);
  REQUIRE_FALSE(stale);
  CHECK(stale.error().code() == fed::ErrorCode::Unavailable);
  fs::remove_all(tmpl);

  auto too_long = UapiSocket::connect("/" + std::string(200, 'x'), 100ms);
  REQUIRE_FALSE(too_long);
  CHECK(too_long.error().code() == fed::ErrorCode::Invalid);
}
