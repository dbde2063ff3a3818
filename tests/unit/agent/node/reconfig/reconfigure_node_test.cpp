// reconfigure_node's steps against a fake kubelet: NodeClient's three calls are overridden, the
// config file, backup and checkpoints are real files in a temporary directory, and the restart
// is a real command (`true` or `false`).
#include "agent/node/reconfig/reconfigure_node.hpp"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "agent/node/reconfig/config_file.hpp"
#include "shared/util/read_file.hpp"
#include "shared/util/rfc3339.hpp"

using fed::ErrorCode;
using nlohmann::json;
using namespace fed::reconfig;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kOld =
    "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
    "cgroupDriver: systemd\nmaxPods: 50\n";

// A kubelet that runs whatever its config file says when observed, unless `refuses` it; the Node
// object keeps the annotations saved through it.
class FakeKubelet final : public NodeClient {
 public:
  explicit FakeKubelet(fs::path config) : NodeClient(nullptr, "node1"), config_(std::move(config)) {
    node_ = {{"metadata", {{"name", "node1"}, {"annotations", json::object()}}}};
  }

  fed::Result<json> get_node() override {
    json node = node_;
    node["status"]["conditions"] = {{{"type", "Ready"},
                                     {"status", "True"},
                                     {"lastHeartbeatTime", fed::util::format_rfc3339(now())}}};
    return node;
  }
  fed::Status save(const Progress& progress) override {
    node_.merge_patch(progress_patch(progress, now()));
    phases.push_back(progress.phase);
    if (lose_answer_to && *lose_answer_to == progress.phase) {
      lose_answer_to.reset();  // applied by the API server, but the answer never arrives
      return fed::Error(ErrorCode::Unavailable, "connection reset");
    }
    return fed::ok();
  }
  KubeletObservation observe() override {
    KubeletObservation seen;
    json config = empty_kubelet_config();  // no file (a drop-in not written yet): defaults
    config.merge_patch(vendor);
    if (auto text = fed::util::read_file(config_)) {
      auto parsed = parse_kubelet_config(*text, config_.string());
      if (!parsed) {
        seen.healthz_detail = "connection refused";
        return seen;
      }
      config.merge_patch(parsed->config);
    }
    if (refuses && refuses(config)) {
      seen.healthz_detail = "connection refused";
      return seen;
    }
    seen.healthz_ok = true;
    seen.node = *get_node();
    seen.configz = config;
    return seen;
  }

  json vendor = json::object();              // what other config files set (a drop-in's base)
  std::function<bool(const json&)> refuses;  // the kubelet does not start with this config
  std::optional<Phase> lose_answer_to;       // the save of this phase reports a lost answer
  std::vector<Phase> phases;                 // every phase saved, in order

 private:
  static std::chrono::system_clock::time_point now() { return std::chrono::system_clock::now(); }
  fs::path config_;
  json node_;
};

class Node final {
 public:
  Node() {
    std::string tmpl = (fs::temp_directory_path() / "fed-reconfig-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
    fs::create_directory(dir_ / "kubelet");
    write(config(), kOld);
    write(dir_ / "kubelet" / "cpu_manager_state", "{\"policyName\":\"none\"}");
  }
  ~Node() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  fs::path config() const { return dir_ / "config.yaml"; }
  fs::path checkpoint() const { return dir_ / "kubelet" / "cpu_manager_state"; }

  ReconfigureRequest request(const std::vector<std::string>& sets,
                             std::vector<std::string> restart = {"true"}) const {
    ReconfigureRequest req;
    req.config_file = config();
    req.root_dir = dir_ / "kubelet";
    auto changes = parse_set_args(sets);
    REQUIRE_MESSAGE(changes.has_value(), changes.error().message());
    req.changes = *changes;
    req.restart.method = RestartMethod::Command;
    req.restart.command = std::move(restart);
    req.restart.timeout = 10s;
    req.timeout = 300ms;
    req.poll_interval = 10ms;
    return req;
  }

  static void write(const fs::path& p, std::string_view text) {
    std::ofstream(p, std::ios::trunc) << text;
  }
  static std::string read(const fs::path& p) { return fed::util::read_file(p).value(); }
  static json config_of(const fs::path& p) {
    return parse_kubelet_config(read(p), p.string()).value().config;
  }

 private:
  fs::path dir_;
};

}  // namespace

TEST_CASE("a change is backed up, written, the checkpoint removed, and recorded phase by phase") {
  Node node;
  FakeKubelet kubelet(node.config());
  const auto req = node.request({"cpuManagerPolicy=static", "reservedSystemCPUs=0"});
  auto report = reconfigure_node(kubelet, req);
  REQUIRE_MESSAGE(report.has_value(), report.error().message());
  CHECK(report->outcome == Outcome::Applied);
  const json config = Node::config_of(node.config());
  CHECK(config["cpuManagerPolicy"] == "static");
  CHECK(config["reservedSystemCPUs"] == "0");
  CHECK(config["cgroupDriver"] == "systemd");  // other fields kept
  CHECK(Node::read(backup_path(node.config())) == kOld);
  CHECK_FALSE(fs::exists(node.checkpoint()));
  CHECK(kubelet.phases == std::vector<Phase>{Phase::Started, Phase::ConfigWritten, Phase::Restarted,
                                             Phase::Succeeded});

  // Running it again finds the values in place: nothing is touched.
  kubelet.phases.clear();
  const auto written = Node::read(node.config());
  auto again = reconfigure_node(kubelet, req);
  REQUIRE(again.has_value());
  CHECK(again->outcome == Outcome::AlreadyApplied);
  CHECK(Node::read(node.config()) == written);
  CHECK(kubelet.phases == std::vector<Phase>{Phase::Succeeded});
}

TEST_CASE("the rewritten config keeps the file's permissions") {
  Node node;
  fs::permissions(node.config(), fs::perms::owner_read | fs::perms::owner_write);
  FakeKubelet kubelet(node.config());
  auto report = reconfigure_node(kubelet, node.request({"maxPods=50"}));
  REQUIRE_MESSAGE(report.has_value(), report.error().message());
  CHECK(Node::config_of(node.config())["maxPods"] == 50);
  CHECK((fs::status(node.config()).permissions() & fs::perms::mask) ==
        (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("a change the kubelet would refuse is Invalid before anything is written") {
  Node node;
  FakeKubelet kubelet(node.config());
  auto report = reconfigure_node(kubelet, node.request({"cpuManagerPolicy=static"}));
  REQUIRE_FALSE(report.has_value());
  CHECK(report.error().code() == ErrorCode::Invalid);
  CHECK(Node::read(node.config()) == kOld);
  CHECK_FALSE(fs::exists(backup_path(node.config())));
  CHECK(fs::exists(node.checkpoint()));
  CHECK(kubelet.phases.empty());
}

TEST_CASE("an unhealthy kubelet is left untouched") {
  Node node;
  FakeKubelet kubelet(node.config());
  kubelet.refuses = [](const json&) { return true; };
  auto report = reconfigure_node(kubelet, node.request({"maxPods=60"}));
  REQUIRE_FALSE(report.has_value());
  CHECK(report.error().code() == ErrorCode::Unavailable);
  CHECK(Node::read(node.config()) == kOld);
  CHECK(kubelet.phases.empty());
}

TEST_CASE("a failed health gate puts the old config back") {
  Node node;
  FakeKubelet kubelet(node.config());
  kubelet.refuses = [](const json& c) { return c.value("maxPods", 0) == 7; };
  auto report = reconfigure_node(kubelet, node.request({"maxPods=7"}));
  REQUIRE_MESSAGE(report.has_value(), report.error().message());
  CHECK(report->outcome == Outcome::RolledBack);
  CHECK(report->message.find("connection refused") != std::string::npos);
  CHECK(Node::read(node.config()) == kOld);
  CHECK(kubelet.phases == std::vector<Phase>{Phase::Started, Phase::ConfigWritten, Phase::Restarted,
                                             Phase::RollingBack, Phase::RolledBack});
}

TEST_CASE("when even the rollback's restart fails, the node is marked Failed") {
  Node node;
  FakeKubelet kubelet(node.config());
  auto report = reconfigure_node(kubelet, node.request({"maxPods=60"}, {"false"}));
  REQUIRE_FALSE(report.has_value());
  CHECK(report.error().code() == ErrorCode::Internal);
  CHECK(report.error().message().find("repair the kubelet by hand") != std::string::npos);
  CHECK(Node::read(node.config()) == kOld);  // the old config is in place
  CHECK(kubelet.phases.back() == Phase::Failed);
}

TEST_CASE("an unfinished different change is a Conflict") {
  Node node;
  FakeKubelet kubelet(node.config());
  kubelet.lose_answer_to = Phase::ConfigWritten;
  REQUIRE_FALSE(reconfigure_node(kubelet, node.request({"maxPods=60"})).has_value());
  auto other = reconfigure_node(kubelet, node.request({"maxPods=70"}));
  REQUIRE_FALSE(other.has_value());
  CHECK(other.error().code() == ErrorCode::Conflict);
  CHECK(other.error().message().find("{\"maxPods\":60}") != std::string::npos);
  // The same change again finishes it.
  auto same = reconfigure_node(kubelet, node.request({"maxPods=60"}));
  REQUIRE_MESSAGE(same.has_value(), same.error().message());
  CHECK(Node::config_of(node.config())["maxPods"] == 60);
}

TEST_CASE("resuming after Started never applies the change to an older change's backup") {
  Node node;
  FakeKubelet kubelet(node.config());
  // An earlier change (maxPods 110 -> 50) succeeded and left its backup behind.
  Node::write(backup_path(node.config()),
              "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
              "cgroupDriver: systemd\nmaxPods: 110\n");
  // This run's Started reaches the API server but its answer is lost: the agent stops there.
  kubelet.lose_answer_to = Phase::Started;
  const auto req = node.request({"cpuManagerPolicy=static", "reservedSystemCPUs=0"});
  REQUIRE_FALSE(reconfigure_node(kubelet, req).has_value());
  CHECK(Node::read(node.config()) == kOld);
  // The next run resumes from Started; the earlier change (maxPods 50) must survive.
  auto report = reconfigure_node(kubelet, req);
  REQUIRE_MESSAGE(report.has_value(), report.error().message());
  CHECK(report->outcome == Outcome::Applied);
  const json config = Node::config_of(node.config());
  CHECK(config["cpuManagerPolicy"] == "static");
  CHECK(config["maxPods"] == 50);
  CHECK(Node::read(backup_path(node.config())) == kOld);
}

TEST_CASE("a drop-in that does not exist yet starts as an empty KubeletConfiguration") {
  Node node;
  const fs::path drop_in = node.config().parent_path() / "99-kubectl-fed.conf";
  FakeKubelet kubelet(drop_in);
  auto req = node.request({"maxPods=60"});
  req.config_file = drop_in;
  req.drop_in = true;
  auto report = reconfigure_node(kubelet, req);
  REQUIRE_MESSAGE(report.has_value(), report.error().message());
  CHECK(report->outcome == Outcome::Applied);
  json want = empty_kubelet_config();
  want["maxPods"] = 60;
  CHECK(Node::config_of(drop_in) == want);
  CHECK(Node::config_of(backup_path(drop_in)) == empty_kubelet_config());
  CHECK(Node::read(node.config()) == kOld);  // the vendor's file is not touched
}

TEST_CASE("a drop-in's change is checked against what the kubelet runs, not the drop-in alone") {
  Node node;
  const fs::path drop_in = node.config().parent_path() / "99-kubectl-fed.conf";
  FakeKubelet kubelet(drop_in);
  auto req = node.request({"cpuManagerPolicy=static"});
  req.config_file = drop_in;
  req.drop_in = true;
  // No reservation anywhere: the kubelet would refuse to start, so nothing is written.
  auto refused = reconfigure_node(kubelet, req);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code() == ErrorCode::Invalid);
  CHECK_FALSE(fs::exists(drop_in));
  // The vendor's file reserves a CPU: the same change is fine and the drop-in holds only it.
  kubelet.vendor = {{"reservedSystemCPUs", "0"}};
  auto report = reconfigure_node(kubelet, req);
  REQUIRE_MESSAGE(report.has_value(), report.error().message());
  CHECK(report->outcome == Outcome::Applied);
  CHECK(Node::config_of(drop_in)["cpuManagerPolicy"] == "static");
  CHECK_FALSE(Node::config_of(drop_in).contains("reservedSystemCPUs"));
}
