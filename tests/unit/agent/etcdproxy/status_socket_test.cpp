// The status socket on a real unix socket in a temporary directory: the file's mode, the
// document served, a stale socket replaced, a live one or a regular file left alone, and the
// file removed at stop. The uid check itself runs across users in the netns test
// (tests/netns/agent/etcdproxy/etcd_status_test.cpp).
#include "agent/etcdproxy/status_socket.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "shared/raii/fd.hpp"

using namespace fed;
using namespace fed::etcdproxy;

namespace {

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/fed-status-socket-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string path;
};

// Connects and reads until the server closes; "" when connect fails.
std::string read_all(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) return "";
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd.get(), buf, sizeof buf, 0)) > 0;) {
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

TEST_CASE("root and the proxy's own uid may read; anyone else may not") {
  CHECK(peer_allowed(0, 0));
  CHECK(peer_allowed(0, 1000));
  CHECK(peer_allowed(1000, 1000));
  CHECK_FALSE(peer_allowed(65534, 0));
  CHECK_FALSE(peer_allowed(1001, 1000));
}

TEST_CASE("the socket is 0600, serves the rendered document per connection and goes at stop") {
  TempDir dir;
  const std::string path = dir.path + "/sub/dir/proxy.sock";  // parents are created
  int renders = 0;
  auto socket = StatusSocket::start(path, [&] { return "doc " + std::to_string(++renders); });
  REQUIRE(socket);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(st.st_uid == ::geteuid());
  CHECK(read_all(path) == "doc 1");
  CHECK(read_all(path) == "doc 2");

  // A second proxy on the same path is refused while the first lives.
  auto second = StatusSocket::start(path, [] { return std::string("other"); });
  REQUIRE_FALSE(second);
  CHECK(second.error().code() == ErrorCode::Unavailable);
  CHECK(second.error().message().find("another process serves it") != std::string::npos);
  CHECK(read_all(path) == "doc 4");  // the second start's liveness probe got "doc 3"

  (*socket)->stop();
  CHECK_FALSE(std::filesystem::exists(path));
  (*socket)->stop();  // idempotent
}

TEST_CASE("a stale socket is replaced; a regular file or a relative path is refused") {
  TempDir dir;
  const std::string path = dir.path + "/proxy.sock";
  {
    // A socket file nobody listens on, as a killed proxy leaves it.
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    REQUIRE(::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  }
  REQUIRE(std::filesystem::is_socket(path));
  {
    auto socket = StatusSocket::start(path, [] { return std::string("fresh"); });
    REQUIRE(socket);
    CHECK(read_all(path) == "fresh");
  }
  CHECK_FALSE(std::filesystem::exists(path));

  std::ofstream(path) << "not a socket";
  auto file = StatusSocket::start(path, [] { return std::string(); });
  REQUIRE_FALSE(file);
  CHECK(file.error().code() == ErrorCode::Invalid);
  CHECK(file.error().message().find("exists and is not a socket") != std::string::npos);
  CHECK(std::filesystem::is_regular_file(path));  // never deleted

  auto relative = StatusSocket::start("proxy.sock", [] { return std::string(); });
  REQUIRE_FALSE(relative);
  CHECK(relative.error().message().find("absolute path") != std::string::npos);
  auto long_path = StatusSocket::start("/" + std::string(200, 'x'), [] { return std::string(); });
  REQUIRE_FALSE(long_path);
  CHECK(long_path.error().message().find("choose a shorter one") != std::string::npos);
}
