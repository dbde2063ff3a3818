// kubectl fed etcd status without a proxy: the human form, the answer checks, and the socket
// client against a stand-in server on a unix socket (what a real proxy serves is checked in
// tests/netns/agent/etcdproxy/etcd_status_test.cpp).
#include "plugin/etcd/etcd.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>

#include "plugin/cli/exit_codes.hpp"
#include "plugin/etcd/etcd_status_client.hpp"
#include "plugin/etcd/etcd_status_view.hpp"
#include "shared/raii/fd.hpp"
#include "shared/util/rfc3339.hpp"

using namespace fed;
using namespace fed::plugin;
using namespace std::chrono_literals;

namespace {

std::chrono::system_clock::time_point at(const char* text) {
  return util::parse_rfc3339(text).value();
}

etcd::ProxyStatus sample() {
  etcd::ProxyStatus s;
  s.policy = "leader";
  for (int i = 0; i < 2; ++i) {
    etcd::ProxyMemberStatus m;
    m.name = i == 0 ? "e1" : "";
    m.endpoint = "https://10.0.0." + std::to_string(i + 1) + ":2379";
    m.id = i == 0 ? "8e9e05c52164694d" : "";
    m.healthy = i == 0;
    m.leader = i == 0;
    m.term = 4;
    m.status_latency_ms = 0.84;
    m.connections = 12;
    m.active = 1;
    m.picks_leader = 11;
    m.picks_fallback = 1;
    s.members.push_back(m);
  }
  s.leader = 0;
  s.raft_term = 4;
  s.leader_changes = 1;
  s.last_leader_move = etcd::ProxyLeaderMove{s.members[1].endpoint, s.members[0].endpoint,
                                             at("2026-11-24T20:00:00Z")};
  return s;
}

// Serves `answer` once on a unix socket in a temporary directory.
class OneShotServer {
 public:
  explicit OneShotServer(std::string answer) {
    char tmpl[] = "/tmp/fed-etcd-status-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = dir_ + "/s.sock";
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    REQUIRE(::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listener_.get(), 1) == 0);
    thread_ = std::thread([this, answer = std::move(answer)] {
      Fd c(::accept(listener_.get(), nullptr, nullptr));
      if (answer == "<hang>") {
        std::this_thread::sleep_for(700ms);
        return;
      }
      (void)::send(c.get(), answer.data(), answer.size(), MSG_NOSIGNAL);
    });
  }
  ~OneShotServer() {
    thread_.join();
    std::filesystem::remove_all(dir_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
  Fd listener_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("the human form: leader, term, last move, then one row per member") {
  const auto text = render_etcd_status(sample(), at("2026-11-24T20:03:00Z"));
  CHECK(text ==
        "Policy:          leader\n"
        "Leader:          https://10.0.0.1:2379 (id 8e9e05c52164694d)\n"
        "Raft term:       4\n"
        "Leader changes:  1, last https://10.0.0.2:2379 -> https://10.0.0.1:2379 at "
        "2026-11-24T20:00:00Z (3m ago)\n"
        "\n"
        "NAME        ENDPOINT                ID                 HEALTHY   LEADER   TERM   RTT     "
        "CONNECTIONS   ACTIVE   PICKS    DIAL-FAILURES   DRAINED\n"
        "e1          https://10.0.0.1:2379   8e9e05c52164694d   yes       *        4      0.8ms   "
        "12            1        11/0/1   0               0\n"
        "<unknown>   https://10.0.0.2:2379   <unknown>          no                 4      -       "
        "12            1        11/0/1   0               0\n");

  auto classified = sample();
  classified.leader.reset();
  classified.members[0].leader = false;
  classified.classification =
      etcd::ProxyClassification{2, at("2026-11-24T20:02:59Z"), "leader overloaded: holding", 0};
  const auto c = render_etcd_status(classified, at("2026-11-24T20:03:00Z"));
  CHECK(c.find("Leader:          <unknown>") != std::string::npos);
  CHECK(c.find("Classification:  overload at 2026-11-24T20:02:59Z (1s ago)\n"
               "Classifier:      leader overloaded: holding (0 move(s))\n") != std::string::npos);
}

TEST_CASE("ages are short and never negative") {
  const auto now = at("2026-11-24T20:00:00Z");
  CHECK(age(now - 5s, now) == "5s");
  CHECK(age(now - 119s, now) == "119s");
  CHECK(age(now - 3min, now) == "3m");
  CHECK(age(now - 5h, now) == "5h");
  CHECK(age(now - 72h, now) == "3d");
  CHECK(age(now + 10s, now) == "0s");
}

TEST_CASE("answers: a refusal is Permission, garbage is a failure naming the socket") {
  const auto refused = parse_status_answer("/run/x.sock", R"({"error":"uid 65534 may not"})");
  REQUIRE_FALSE(refused);
  CHECK(exit_code_for(refused.error()) == ExitCode::Forbidden);
  CHECK(refused.error().message() == "etcd proxy on /run/x.sock refused: uid 65534 may not");

  const auto garbage = parse_status_answer("/run/x.sock", "SSH-2.0-OpenSSH_9.2\r\n");
  REQUIRE_FALSE(garbage);
  CHECK(exit_code_for(garbage.error()) == ExitCode::Failure);
  CHECK(garbage.error().message().find("etcd proxy status socket /run/x.sock sent an answer "
                                       "kubectl-fed cannot read") == 0);
  CHECK(garbage.error().message().find("same version") != std::string::npos);

  const auto good = parse_status_answer("/run/x.sock", etcd::to_json_text(sample()));
  REQUIRE(good);
  CHECK(good->leader == std::optional<std::size_t>(0));
}

TEST_CASE("the socket client: missing socket, dead socket, hang, and a full answer") {
  const auto missing = read_status_socket("/nonexistent/etcd-proxy.sock", 1s);
  REQUIRE_FALSE(missing);
  CHECK(exit_code_for(missing.error()) == ExitCode::Unavailable);
  CHECK(missing.error().message().find("is fed-agent etcd-proxy running on this node? pass its "
                                       "--status-socket path with --socket") != std::string::npos);

  {
    OneShotServer hang("<hang>");
    const auto slow = read_status_socket(hang.path(), 200ms);
    REQUIRE_FALSE(slow);
    CHECK(exit_code_for(slow.error()) == ExitCode::Unavailable);
    CHECK(slow.error().message().find("did not answer within 200 ms") != std::string::npos);
  }
  {
    const std::string doc = etcd::to_json_text(sample());
    OneShotServer server(doc);
    const auto answer = read_status_socket(server.path(), 2s);
    REQUIRE(answer);
    CHECK(*answer == doc);
  }
}

TEST_CASE("run_etcd_status prints the document for -o json and the table by default") {
  const std::string doc = etcd::to_json_text(sample());
  for (const auto format : {OutputFormat::Json, OutputFormat::Table}) {
    OneShotServer server(doc);
    GlobalOptions global;
    global.output = format;
    std::ostringstream out, err;
    Output output(out, err, format, Progress::Hidden);
    REQUIRE(run_etcd_status(global, {"status", server.path()}, output));
    if (format == OutputFormat::Json) {
      const auto j = nlohmann::json::parse(out.str());
      CHECK(j["leader"] == "https://10.0.0.1:2379");
      CHECK(j == etcd::to_json(sample()));
    } else {
      CHECK(out.str().find("\nLeader:          https://10.0.0.1:2379") != std::string::npos);
    }
  }
}
