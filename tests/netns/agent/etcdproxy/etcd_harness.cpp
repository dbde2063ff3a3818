#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

#include <fcntl.h>
#include <sched.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

namespace fed::etcdtest {

int harness(const std::string& args) {
  const std::string cmd = std::string("FED_DELAY_PROXY=") + FED_DELAY_PROXY_PATH + " " +
                          FED_SOURCE_DIR + "/scripts/etcd-harness/harness.sh " + args;
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

Cluster::Cluster(int delay_ms) {
  dir_ = std::string(FED_BINARY_DIR) + "/fedetcd-run";
  harness("down " + dir_);
  std::filesystem::remove_all(dir_ + "/data1");
  std::filesystem::remove_all(dir_ + "/data2");
  std::filesystem::remove_all(dir_ + "/data3");
  up_ = harness("up " + dir_ + " " + std::to_string(delay_ms)) == 0;
}

Cluster::~Cluster() {
  if (std::getenv("FED_KEEP_NETNS") != nullptr) return;
  harness("down " + dir_);
}

etcd::TlsFiles Cluster::client_tls() const {
  return {dir_ + "/pki/ca.crt", dir_ + "/pki/client.crt", dir_ + "/pki/client.key"};
}

bool Cluster::kill_member(int n) {
  return harness("kill " + dir_ + " " + std::to_string(n)) == 0;
}

bool Cluster::restart_member(int n) {
  return harness("restart " + dir_ + " " + std::to_string(n)) == 0;
}

InClientNetns::InClientNetns(const std::string& ns)
    : original_(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) {
  Fd target(::open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC));
  ok_ = original_ && target && ::setns(target.get(), CLONE_NEWNET) == 0;
}

InClientNetns::~InClientNetns() {
  if (ok_) (void)::setns(original_.get(), CLONE_NEWNET);
}

void run_workload(etcd::EtcdClient& client, WorkloadCounts& counts, const std::atomic<bool>& stop,
                  int attempts, std::chrono::milliseconds backoff) {
  for (std::uint64_t i = 0; !stop.load(); ++i) {
    const std::string key = "/fedetcd/k" + std::to_string(i % 50);
    const std::string value = "v" + std::to_string(i);
    for (int op = 0; op < 2; ++op) {
      bool done = false;
      for (int a = 0; a < attempts && !done; ++a) {
        Status s = ok();
        if (op == 0) {
          auto r = client.put({key, value, 0, false});
          if (!r) s = std::move(r).error();
        } else {
          auto r = client.range({key, "", 0, 0, false, false, false});
          if (!r) {
            s = std::move(r).error();
          } else if (r->kvs.empty() || r->kvs[0].value != value) {
            s = fail(ErrorCode::Internal, "read " + key + " did not return the value just put");
          }
        }
        if (s) {
          done = true;
        } else {
          if (counts.errors.size() < 10) counts.errors.push_back(s.error().message());
          if (a + 1 < attempts) {
            ++counts.retries;
            std::this_thread::sleep_for(backoff);
          }
        }
      }
      ++(done ? counts.ok : counts.failed);
    }
  }
}

}  // namespace fed::etcdtest
