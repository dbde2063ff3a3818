#include "tests/bench/agent/node/fabric/tcp_paths.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <thread>

#include <doctest/doctest.h>

#include "tests/netns/agent/node/fabric/federation.hpp"

namespace fed::fabric::netns_test {
namespace {

const std::string kSender = "taskset -c 0 ";
const std::string kReceiver = "taskset -c 1 ";

void send_round(Lab& lab, TcpPath& p) {
  auto out = lab.run(p.from, kSender + probe_binary() + " send --port 9000 --seconds " +
                                 env_or("FED_BENCH_SECONDS", "3") + " --to " + p.to_ip);
  std::smatch m;
  REQUIRE(std::regex_search(out, m, std::regex("gbit_per_s=([0-9.]+)")));
  p.gbit.push_back(std::stod(m[1]));
}

void latency(Lab& lab, TcpPath& p) {
  p.rr = lab.run(p.from, probe_binary() + " rr --port 8080 --count 500 --to " + p.to_ip);
  p.rr.erase(p.rr.find_last_not_of('\n') + 1);
}

}  // namespace

double TcpPath::median() const {
  auto v = gbit;
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string TcpPath::spread() const {
  std::ostringstream s;
  s << "median " << median() << " Gbit/s (min " << *std::min_element(gbit.begin(), gbit.end())
    << ", max " << *std::max_element(gbit.begin(), gbit.end()) << ", n=" << gbit.size() << ")";
  return s.str();
}

std::string env_or(const char* name, const char* fallback) {
  const char* s = std::getenv(name);
  return s != nullptr ? s : fallback;
}

void sink(Lab& lab, const std::string& ns) {
  lab.spawn(ns, kReceiver + probe_binary() + " sink --port 9000", lab.dir() + "/" + ns + ".sink");
}

void serve(Lab& lab, const std::string& ns) {
  sink(lab, ns);
  lab.spawn(ns, probe_binary() + " serve --port 8080 --name " + ns, lab.dir() + "/" + ns + ".rr");
}

void wait_reachable(Lab& lab, const TcpPath& p) {
  for (int i = 0; i < 50; ++i) {
    if (sh(lab.in(p.from, probe_binary() + " rr --port 8080 --count 1 --to " + p.to_ip)).code ==
        0) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  FAIL("no TCP path " << p.label << " to " << p.to_ip);
}

void measure(Lab& lab, std::vector<TcpPath>& paths, const std::string& reference_name) {
  for (const auto& p : paths) wait_reachable(lab, p);
  const int rounds = std::stoi(env_or("FED_BENCH_TCP_ROUNDS", "7"));
  for (int r = 0; r < rounds; ++r) {
    for (auto& p : paths) send_round(lab, p);
  }
  for (auto& p : paths) latency(lab, p);
  const double first = paths[0].median();
  for (const auto& p : paths) {
    std::ostringstream vs_reference;
    if (p.reference != 0) {
      vs_reference << ", "
                   << 100 * p.median() / paths[static_cast<std::size_t>(p.reference)].median()
                   << " % of " << reference_name;
    }
    MESSAGE(p.label << ": " << p.spread() << "; " << 100 * p.median() / first << " % of "
                    << paths[0].label << vs_reference.str() << "; " << p.rr);
  }
}

void veth(Lab& lab, const std::string& a, const std::string& a_dev, const std::string& b,
          const std::string& b_dev) {
  must("ip -n " + lab.ns(a) + " link add " + a_dev + " type veth peer name " + b_dev + " netns " +
       lab.ns(b));
}

}  // namespace fed::fabric::netns_test
