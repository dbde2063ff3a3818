// fed-agent reconfigure-node against a real kubelet: c2/node1 of the testbed. The agent runs in
// the node's network namespace with no path or restart flag, as in its pod: it finds the
// kubelet, its files and how to restart it (stopped, for its supervisor to start again) itself.
// Checks what the kubelet really runs (/configz through the API server), what a Guaranteed pod
// really gets (its cgroup's cpuset), and that a value the kubelet refuses at start is rolled back
// to a Ready node running the old config. The node's original config is put back at the end,
// whatever happened.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "shared/util/read_file.hpp"
#include "shared/util/subprocess.hpp"
#include "tests/e2e/shared/kube/e2e_support.hpp"

namespace {

using namespace fed::kube;
using namespace fed::kube::e2e;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kTestbed = std::string(FED_SOURCE_DIR) + "/scripts/testbed";
const fs::path kNodeDir = "/var/lib/fedtb/c2/node1";
// The node's /var/lib/kubelet (its mount namespace binds this directory there).
const fs::path kRootDir = kNodeDir / "kubelet";
const fs::path kConfig = kRootDir / "config.yaml";
const fs::path kSupervisorPid = "/run/fedtb/pids/c2-node1-kubelet.pid";
// c2's admin kubeconfig; asked for inside a test, where a failing command can fail it.
const std::string& kubeconfig() {
  static const std::string path = run("'" + kTestbed + "' kubeconfig c2");
  return path;
}
// The same, by the address the node's network reaches (its loopback is its own).
const std::string& node_kubeconfig() {
  static const std::string path = run("'" + kTestbed + "' kubeconfig c2 --internal");
  return path;
}
// The running kubelet's pid: it changes when the kubelet restarts, its supervisor's does not.
std::string kubelet_pid() {
  return run("pgrep -P \"$(cat " + kSupervisorPid.string() + ")\" -x kubelet");
}
const GroupVersionResource kNodes{"", "v1", "nodes"};

std::string slurp(const fs::path& p) {
  auto text = fed::util::read_file(p);
  if (!text) FAIL(text.error().message());
  return *text;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::trunc) << text;
}

// Runs fed-agent reconfigure-node on c2/node1 with `sets` and extra flags.
fed::util::SubprocessResult agent(const std::vector<std::string>& args) {
  fed::util::SubprocessOptions o;
  o.argv = {kTestbed,
            "exec",
            "c2",
            "node1",
            "--",
            FED_AGENT_BINARY,
            "reconfigure-node",
            "--kubeconfig",
            node_kubeconfig(),
            "--node",
            "node1"};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.stderr_mode = fed::util::StderrMode::Capture;
  o.timeout = 5min;
  auto r = fed::util::run_subprocess(o);
  if (!r) FAIL(r.error().message());
  MESSAGE("fed-agent " << r->describe() << "\nstdout: " << r->stdout_data
                       << "\nstderr: " << r->stderr_data);
  return *r;
}

json configz(DynamicClient& c) {
  auto raw = c.get_raw("/api/v1/nodes/node1/proxy/configz");
  if (!raw) FAIL(raw.error().to_error().message());
  return json::parse(*raw)["kubeletconfig"];
}

json node1(DynamicClient& c) {
  return must(c.get(ResourceRef{kNodes, "", "node1", ""}), "node1");
}

std::string annotation(DynamicClient& c, const std::string& name) {
  return node1(c)["metadata"]["annotations"].value("kubectl-fed.io/reconfigure-" + name, "");
}

bool ready(DynamicClient& c) {
  const json node = node1(c);  // the loop must not walk a destroyed temporary
  for (const auto& cond : node["status"]["conditions"]) {
    if (cond["type"] == "Ready") return cond["status"] == "True";
  }
  return false;
}

// Puts node1's original kubelet config back (file, checkpoint, restart, progress annotations)
// when the test ends, passed or not, so the shared testbed stays as it was.
class RestoreKubelet final {
 public:
  explicit RestoreKubelet(DynamicClient& c) : c_(c), original_(slurp(kConfig)) {}
  ~RestoreKubelet() {
    write(kConfig, original_);
    fs::remove(kRootDir / "cpu_manager_state");
    // Not run(): a REQUIRE must not throw out of a destructor.
    fed::util::SubprocessOptions o;
    o.argv = {kTestbed, "restart-kubelet", "c2", "node1"};
    auto restarted = fed::util::run_subprocess(o);
    CHECK((restarted && restarted->succeeded()));
    json patch = {{"metadata", {{"annotations", json::object()}}}};
    for (const char* k : {"phase", "desired", "original", "message", "updated"}) {
      patch["metadata"]["annotations"][std::string("kubectl-fed.io/reconfigure-") + k] = nullptr;
    }
    (void)c_.patch(ResourceRef{kNodes, "", "node1", ""}, PatchType::Merge, patch.dump());
    CHECK(eventually([&] { return configz_policy() == "none" && ready(c_); }, 90s));
  }
  const std::string& original() const { return original_; }

 private:
  std::string configz_policy() {
    auto raw = c_.get_raw("/api/v1/nodes/node1/proxy/configz");
    if (!raw) return "";
    return json::parse(*raw)["kubeletconfig"].value("cpuManagerPolicy", "");
  }
  DynamicClient& c_;
  std::string original_;
};

json guaranteed_pod(const std::string& name) {
  const json resources = {{"cpu", "1"}, {"memory", "64Mi"}};
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}}},
              {"spec",
               {{"nodeSelector", {{"kubernetes.io/hostname", "node1"}}},
                {"terminationGracePeriodSeconds", 1},
                {"containers",
                 {{{"name", "main"},
                   {"image", "fed.local/busybox:1"},
                   {"command", {"sleep", "3600"}},
                   {"resources", {{"requests", resources}, {"limits", resources}}}}}}}}};
}

// The cpuset.cpus of the container `id` (no runtime prefix), found under node1's cgroup root.
std::string container_cpuset(const std::string& id) {
  const fs::path root = "/sys/fs/cgroup/cpuset/fedtb-c2-node1";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_directory() && entry.path().filename() == id) {
      std::string cpus = slurp(entry.path() / "cpuset.cpus");
      while (!cpus.empty() && cpus.back() == '\n') cpus.pop_back();
      return cpus;
    }
  }
  FAIL("no cgroup of container " << id << " under " << root);
  return "";
}

}  // namespace

TEST_CASE("reconfigure-node: bad input is refused and changes nothing") {
  auto c = client(config_from(kubeconfig()));
  const std::string before = slurp(kConfig);
  const std::string pid = kubelet_pid();

  auto unknown = agent({"--set", "cpuManagerPolicyy=static"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.stderr_data.find("did you mean cpuManagerPolicy") != std::string::npos);

  auto gate = agent({"--set", "featureGates.StorageVersionMigrator=true"});
  CHECK(gate.exit_code == 2);
  CHECK(gate.stderr_data.find("control-plane feature gate") != std::string::npos);

  // Static policy without a CPU reservation: the kubelet would refuse to start.
  auto unreserved = agent({"--set", "cpuManagerPolicy=static"});
  CHECK(unreserved.exit_code == 2);
  CHECK(unreserved.stderr_data.find("reservedSystemCPUs") != std::string::npos);

  CHECK(slurp(kConfig) == before);
  CHECK(kubelet_pid() == pid);  // never restarted
  CHECK(annotation(*c, "phase").empty());
}

TEST_CASE("reconfigure-node: static CPU policy, exclusive cpuset, more fields, rollback") {
  auto c = client(config_from(kubeconfig()));
  REQUIRE(ready(*c));
  RestoreKubelet restore(*c);
  REQUIRE(configz(*c).value("cpuManagerPolicy", "") == "none");

  // 1. cpuManagerPolicy=static with CPU 0 reserved (each testbed node sees the machine's 2 CPUs).
  auto applied = agent(
      {"--set", "cpuManagerPolicy=static", "--set", "reservedSystemCPUs=0", "--timeout", "90s"});
  REQUIRE(applied.exit_code == 0);
  CHECK(applied.stdout_data.find("node1: applied") != std::string::npos);
  json running = configz(*c);
  CHECK(running["cpuManagerPolicy"] == "static");
  CHECK(running["reservedSystemCPUs"] == "0");
  CHECK(annotation(*c, "phase") == "Succeeded");
  CHECK(json::parse(annotation(*c, "original"))["cpuManagerPolicy"] == "none");
  CHECK(fs::exists(kConfig.string() + ".kubectl-fed-backup"));
  CHECK(slurp(kConfig.string() + ".kubectl-fed-backup") == restore.original());

  // 2. The same request again resumes nothing and restarts nothing.
  const std::string pid = kubelet_pid();
  auto again = agent({"--set", "cpuManagerPolicy=static", "--set", "reservedSystemCPUs=0"});
  CHECK(again.exit_code == 0);
  CHECK(again.stdout_data.find("already applied") != std::string::npos);
  CHECK(kubelet_pid() == pid);

  // 3. A Guaranteed pod with 1 CPU gets CPU 1 to itself: its container's cgroup says so.
  {
    TestNamespace ns(*c, "reconfig");
    const ResourceRef pods = kPods.in_namespace(ns.name());
    REQUIRE(eventually([&] { return c->create(pods, guaranteed_pod("pinned")).has_value(); }, 30s));
    json pod;
    REQUIRE(eventually(
        [&] {
          auto p = c->get(pods.named("pinned"));
          if (!p) return false;
          pod = *p;
          return pod["status"].value("phase", "") == "Running";
        },
        90s));
    CHECK(pod["status"]["qosClass"] == "Guaranteed");
    std::string id = pod["status"]["containerStatuses"][0].value("containerID", "");
    id = id.substr(id.find("://") + 3);
    CHECK(container_cpuset(id) == "1");
    ns.pass();
  }

  // 4. A kubelet feature gate and another allow-listed field, read back the same way.
  auto more = agent({"--set", "featureGates.CPUManagerPolicyAlphaOptions=true", "--set",
                     "maxPods=50", "--timeout", "90s"});
  REQUIRE(more.exit_code == 0);
  running = configz(*c);
  CHECK(running["featureGates"]["CPUManagerPolicyAlphaOptions"] == true);
  CHECK(running["maxPods"] == 50);
  CHECK(running["cpuManagerPolicy"] == "static");  // earlier changes are kept
  CHECK(eventually([&] { return node1(*c)["status"]["allocatable"]["pods"] == "50"; }, 30s));

  // 5. CPU 7 does not exist on this machine: the kubelet exits at start, the agent rolls back.
  const std::string before = slurp(kConfig);
  auto rejected = agent({"--set", "reservedSystemCPUs=7", "--timeout", "25s"});
  CHECK(rejected.exit_code == 1);
  CHECK(rejected.stdout_data.find("rolled back") != std::string::npos);
  CHECK(annotation(*c, "phase") == "RolledBack");
  CHECK(annotation(*c, "message").find("not healthy within 25s") != std::string::npos);
  CHECK(slurp(kConfig) == before);
  CHECK(ready(*c));
  running = configz(*c);
  CHECK(running["reservedSystemCPUs"] == "0");
  CHECK(running["maxPods"] == 50);
}
