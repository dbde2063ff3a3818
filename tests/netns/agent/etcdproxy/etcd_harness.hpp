#pragma once
// Test support around scripts/etcd-harness/harness.sh: brings the 3-member etcd cluster (with
// per-member delay proxies) up and down, switches the calling thread into the client namespace
// fedetcd-c (threads started afterwards inherit it), and runs a serial, counted KV workload.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "shared/etcd/client.hpp"
#include "shared/raii/fd.hpp"

namespace fed::etcdtest {

inline constexpr const char* kMemberUrls[] = {"https://10.199.0.1:2379", "https://10.199.0.2:2379",
                                              "https://10.199.0.3:2379"};

// Runs harness.sh with `args`; returns its exit code.
int harness(const std::string& args);

// The cluster for one test: up in the constructor (after a cleanup of leftovers), down in the
// destructor unless the test failed and FED_KEEP_NETNS is set.
class Cluster {
 public:
  explicit Cluster(int delay_ms);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  bool up() const { return up_; }
  const std::string& dir() const { return dir_; }
  etcd::TlsFiles client_tls() const;
  // Member n (1..3): SIGKILL, or start again on its data dir.
  bool kill_member(int n);
  bool restart_member(int n);

 private:
  std::string dir_;
  bool up_ = false;
};

// While alive, the calling thread is in namespace `ns` (the client namespace fedetcd-c unless a
// test runs its own cluster with FED_ETCD_NS).
class InClientNetns {
 public:
  explicit InClientNetns(const std::string& ns = "fedetcd-c");
  ~InClientNetns();
  InClientNetns(const InClientNetns&) = delete;
  InClientNetns& operator=(const InClientNetns&) = delete;
  bool ok() const { return ok_; }

 private:
  Fd original_;
  bool ok_ = false;
};

// Counters of a workload: each op is retried (same key and value: idempotent) on failure.
struct WorkloadCounts {
  std::atomic<std::uint64_t> ok{0};
  std::atomic<std::uint64_t> retries{0};  // failed attempts followed by another attempt
  std::atomic<std::uint64_t> failed{0};   // ops that failed after every attempt
  std::vector<std::string> errors;        // first few messages (workload thread only)
};

// Serial put + linearizable get of key i%keys until `stop`; each op up to `attempts` tries with
// `backoff` between them.
void run_workload(etcd::EtcdClient& client, WorkloadCounts& counts, const std::atomic<bool>& stop,
                  int attempts, std::chrono::milliseconds backoff);

}  // namespace fed::etcdtest
