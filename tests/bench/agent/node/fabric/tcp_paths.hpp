#pragma once
// TCP paths of the data-plane benchmarks: one stream for FED_BENCH_SECONDS (3) from a
// namespace to an address, sender pinned to CPU 0 and receiver to CPU 1 (fed_tcp_probe send /
// sink), rounds interleaved across paths and medians compared, because a single run on this VM
// swings by +-30 %; latency = connect + one request/reply, 500 times.

#include <string>
#include <vector>

#include "tests/netns/agent/node/fabric/lab.hpp"

namespace fed::fabric::netns_test {

struct TcpPath {
  std::string label, from, to_ip;
  int reference = 0;  // index of the path it is compared with besides the first (0: none)
  std::vector<double> gbit;
  std::string rr;  // the latency line

  double median() const;
  std::string spread() const;  // "median X Gbit/s (min, max, n)"
};

// The value of environment variable `name`, or `fallback`.
std::string env_or(const char* name, const char* fallback);

// A throughput sink (port 9000) on CPU 1, and with `serve` also the request/reply server
// (port 8080) the latency needs.
void sink(Lab& lab, const std::string& ns);
void serve(Lab& lab, const std::string& ns);

// Waits until `p` answers a request (servers start asynchronously); FAILs after 5 s.
void wait_reachable(Lab& lab, const TcpPath& p);

// FED_BENCH_TCP_ROUNDS (7) interleaved rounds over `paths`, then their latencies; one MESSAGE
// per path with its figures relative to the first path and to its reference, called
// `reference_name`.
void measure(Lab& lab, std::vector<TcpPath>& paths, const std::string& reference_name);

// A veth pair between two namespaces of `lab`.
void veth(Lab& lab, const std::string& a, const std::string& a_dev, const std::string& b,
          const std::string& b_dev);

}  // namespace fed::fabric::netns_test
