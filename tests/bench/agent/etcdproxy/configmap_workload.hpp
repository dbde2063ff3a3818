#pragma once
// The Table 6.1 workload: `count` serial rounds of one ConfigMap create and one GET of it against
// a kube-apiserver over one keep-alive TLS connection (client certificate auth). Each GET without
// resourceVersion is a quorum read in etcd and each create a txn, so every API request costs one
// linearizable etcd round trip from kube-apiserver.

#include <chrono>
#include <string>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::etcdbench {

struct WorkloadOptions {
  std::string server;  // https://10.199.0.10:6443
  std::string ca_file, cert_file, key_file;
  std::string prefix = "bench";  // ConfigMap names: <prefix>-<i>
  int count = 200;               // rounds; 2 * count requests
  // When positive: rounds until this much time has passed (count is ignored).
  std::chrono::milliseconds duration{0};
};

struct WorkloadResult {
  double seconds = 0;
  int requests = 0;
  int failed = 0;                    // non-2xx answers or transport errors
  std::vector<double> latencies_ms;  // per request
  std::vector<double> started_s;     // per request: when it was sent, seconds after `started`
  std::vector<bool> succeeded;       // per request
  std::chrono::steady_clock::time_point started;
  std::vector<std::string> errors;  // first few
};

// Runs the workload; an error only when curl cannot be set up.
Result<WorkloadResult> run_configmap_workload(const WorkloadOptions& options);

}  // namespace fed::etcdbench
