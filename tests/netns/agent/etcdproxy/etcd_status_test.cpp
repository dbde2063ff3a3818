// kubectl fed etcd status end to end: the real `fed-agent etcd-proxy` in front of a real 3-member
// etcd cluster (mTLS, namespaces of its own: FED_ETCD_NS=fedetcdst, so it never touches the
// fedetcd-* cluster of etcd_proxy_test), read by the real kubectl-fed binary over the proxy's
// status socket. Checks that the leader it reports is the one etcd's members report, that it
// follows a move-leader, and that another uid is refused both by the socket's mode (connect
// fails) and, with the mode loosened by hand, by the proxy's SO_PEERCRED check.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include "shared/etcd/client.hpp"
#include "shared/util/subprocess.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

using namespace fed;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

constexpr const char* kNs = "fedetcdst";
constexpr const char* kNet = "10.199.9";

std::vector<std::string> member_urls() {
  std::vector<std::string> urls;
  for (int n = 1; n <= 3; ++n)
    urls.push_back("https://" + std::string(kNet) + "." + std::to_string(n) + ":2379");
  return urls;
}

// The harness cluster of this test: up in the constructor, down in the destructor unless
// FED_KEEP_NETNS is set (then `harness.sh down DIR` with the same FED_ETCD_NS cleans up).
struct OwnCluster {
  OwnCluster() {
    ::setenv("FED_ETCD_NS", kNs, 1);
    ::setenv("FED_ETCD_NET", kNet, 1);
    etcdtest::harness("down " + dir);
    for (int n = 1; n <= 3; ++n) std::filesystem::remove_all(dir + "/data" + std::to_string(n));
    up = etcdtest::harness("up " + dir + " 0") == 0;
  }
  ~OwnCluster() {
    if (std::getenv("FED_KEEP_NETNS") == nullptr) etcdtest::harness("down " + dir);
  }
  etcd::TlsFiles tls() const {
    return {dir + "/pki/ca.crt", dir + "/pki/client.crt", dir + "/pki/client.key"};
  }
  std::string dir = std::string(FED_BINARY_DIR) + "/fedetcdst-run";
  bool up = false;
};

// `fed-agent etcd-proxy` as a child process, SIGTERM and reaped at the end.
struct ProxyProcess {
  explicit ProxyProcess(std::vector<std::string> argv) {
    util::SubprocessOptions o;
    o.argv = std::move(argv);
    auto spawned = util::spawn_background(o);
    REQUIRE_MESSAGE(spawned, (spawned ? "" : spawned.error().message()));
    pid = *spawned;
  }
  // The exit code after SIGTERM, or -1.
  int terminate() {
    if (pid <= 0) return -1;
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  ~ProxyProcess() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  int pid = -1;
};

util::SubprocessResult run(std::vector<std::string> argv) {
  util::SubprocessOptions o;
  o.argv = std::move(argv);
  o.stderr_mode = util::StderrMode::Capture;
  o.timeout = 20s;
  auto r = util::run_subprocess(o);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
  return *r;
}

std::vector<std::string> status_cmd(const std::string& socket) {
  return {KUBECTL_FED_BINARY, "etcd", "status", "-o", "json", "--socket", socket};
}

// The status document kubectl-fed prints, or null when it failed.
json etcd_status(const std::string& socket) {
  const auto r = run(status_cmd(socket));
  if (r.exit_code != 0) return nullptr;
  return json::parse(r.stdout_data, nullptr, false);
}

std::string hex_id(std::uint64_t id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(id));
  return buf;
}

// The leader every answering member agrees on, as etcdctl would show it: its id and endpoint.
std::optional<std::pair<std::string, std::string>> etcd_leader(
    etcd::EtcdClient& admin, const std::vector<std::string>& urls) {
  std::optional<std::uint64_t> leader;
  std::map<std::uint64_t, std::string> endpoint_of;
  for (std::size_t i = 0; i < urls.size(); ++i) {
    auto s = admin.status(i);
    if (!s) return std::nullopt;
    endpoint_of[s->header.member_id] = urls[i];
    if (s->leader == 0 || (leader && *leader != s->leader)) return std::nullopt;
    leader = s->leader;
  }
  if (!leader || !endpoint_of.contains(*leader)) return std::nullopt;
  return std::pair{hex_id(*leader), endpoint_of[*leader]};
}

template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return pred();
}

}  // namespace

TEST_CASE("kubectl fed etcd status reports etcd's leader, follows move-leader, refuses others") {
  OwnCluster cluster;
  REQUIRE_MESSAGE(cluster.up, "harness up failed; logs in " << cluster.dir);
  etcdtest::InClientNetns netns(std::string(kNs) + "-c");  // the proxy and clients inherit it
  REQUIRE(netns.ok());
  const auto urls = member_urls();

  char tmpl[] = "/tmp/fed-etcd-status-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  ::chmod(dir.c_str(), 0755);  // so that only the socket's own mode keeps uid 65534 out
  const std::string socket = dir + "/etcd-proxy.sock";
  const auto tls = cluster.tls();
  std::string members;
  for (const auto& u : urls) members += (members.empty() ? "" : ",") + u;
  ProxyProcess proxy({FED_AGENT_BINARY, "etcd-proxy", "--bind-address", "127.0.0.1:0",
                      "--listen-address", "127.0.0.1:0", "--members", members, "--cacert",
                      tls.ca_file, "--cert", tls.cert_file, "--key", tls.key_file,
                      "--poll-period-ms", "200", "--status-socket", socket});

  etcd::ClientOptions co;
  co.endpoints = urls;
  co.tls = tls;
  co.poll_period = 200ms;
  auto admin = std::move(etcd::EtcdClient::create(co).value());
  REQUIRE(admin->wait_for_leader(10s));

  // 1. The leader the proxy reports is the leader etcd's members report.
  // The proxy polls each member on its own, and a freshly started cluster may still elect:
  // wait until it has heard from all three and agrees with etcd on the leader.
  json doc;
  REQUIRE(eventually(
      [&] {
        doc = etcd_status(socket);
        if (!doc.is_object() || !doc["leader"].is_string() || doc["members"].size() != 3)
          return false;
        for (const auto& m : doc["members"])
          if (m["healthy"] != true) return false;
        const auto now = etcd_leader(*admin, urls);
        return now && doc["leaderId"] == now->first;
      },
      15s));
  MESSAGE("kubectl fed etcd status -o json:\n" << doc.dump(2));
  CHECK(doc["policy"] == "leader");
  REQUIRE(doc["members"].size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& m = doc["members"][i];
    CHECK(m["endpoint"] == urls[i]);
    CHECK(m["name"] == "e" + std::to_string(i + 1));  // harness.sh: etcd --name eN
    CHECK(m["healthy"] == true);
    CHECK(m["statusLatencyMs"].get<double>() > 0);
  }
  auto leader = etcd_leader(*admin, urls);
  REQUIRE(leader);
  CHECK(doc["leaderId"] == leader->first);
  CHECK(doc["leader"] == leader->second);
  CHECK(doc["raftTerm"].get<std::uint64_t>() > 0);

  struct stat st {};
  REQUIRE(::stat(socket.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(st.st_uid == 0);

  // 2. move-leader: the status names the new leader and the move.
  std::size_t old_index = 0;
  while (urls[old_index] != leader->second) ++old_index;
  const std::size_t target = (old_index + 1) % 3;
  const auto target_status = admin->status(target);
  REQUIRE(target_status);
  REQUIRE(admin->move_leader(target_status->header.member_id));
  CHECK(eventually(
      [&] {
        doc = etcd_status(socket);
        return doc.is_object() && doc["leader"] == urls[target];
      },
      10s));
  leader = etcd_leader(*admin, urls);
  REQUIRE(leader);
  CHECK(doc["leaderId"] == leader->first);
  CHECK(doc["leader"] == leader->second);
  CHECK(doc["leaderChanges"].get<std::uint64_t>() >= 1);
  REQUIRE(doc["lastLeaderMove"].is_object());
  CHECK(doc["lastLeaderMove"]["from"] == urls[old_index]);
  CHECK(doc["lastLeaderMove"]["to"] == urls[target]);

  // The table form names the leader too.
  const auto table = run({KUBECTL_FED_BINARY, "etcd", "status", "--socket", socket});
  CHECK(table.exit_code == 0);
  CHECK(table.stdout_data.find("Leader:          " + urls[target]) != std::string::npos);
  MESSAGE("kubectl fed etcd status:\n" << table.stdout_data);

  // 3. Another uid: the 0600 socket refuses the connect itself (exit 4)...
  std::vector<std::string> nobody = {"setpriv", "--reuid", "65534",
                                     "--regid", "65534",   "--clear-groups"};
  auto as_nobody = nobody;
  for (const auto& a : status_cmd(socket)) as_nobody.push_back(a);
  const auto denied = run(as_nobody);
  INFO(denied.stderr_data);
  CHECK(denied.exit_code == 4);
  CHECK(denied.stdout_data.empty());
  CHECK(denied.stderr_data.find("Permission denied (the socket is root's: run sudo kubectl fed "
                                "etcd status)") != std::string::npos);
  // ...and with the mode loosened by hand, the proxy's SO_PEERCRED check refuses it (exit 4).
  REQUIRE(::chmod(socket.c_str(), 0666) == 0);
  const auto refused = run(as_nobody);
  INFO(refused.stderr_data);
  CHECK(refused.exit_code == 4);
  CHECK(refused.stderr_data.find("refused: uid 65534 may not read the etcd proxy status") !=
        std::string::npos);
  CHECK(etcd_status(socket).is_object());  // root still reads it

  // 4. SIGTERM: the proxy exits 0 and removes its socket; the client then says what to do.
  CHECK(proxy.terminate() == 0);
  CHECK_FALSE(std::filesystem::exists(socket));
  const auto gone = run(status_cmd(socket));
  CHECK(gone.exit_code == 3);
  CHECK(gone.stderr_data.find("is fed-agent etcd-proxy running on this node?") !=
        std::string::npos);
  std::filesystem::remove_all(dir);
}
