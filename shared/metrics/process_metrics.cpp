#include "shared/metrics/process_metrics.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace fed::metrics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double cpu_seconds() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return kNaN;
  const auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Field `index` (0 = total size, 1 = resident) of /proc/self/statm, in bytes.
double statm_bytes(int index) {
  std::ifstream in("/proc/self/statm");
  double pages[2] = {kNaN, kNaN};
  if (!(in >> pages[0] >> pages[1])) return kNaN;
  return pages[index] * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

double open_fds() {
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/self/fd", ec);
  if (ec) return kNaN;
  double n = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return kNaN;
    ++n;
  }
  return n - 1;  // the iterator's own descriptor
}

double max_fds() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return kNaN;
  return limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<double>::infinity()
                                         : static_cast<double>(limit.rlim_cur);
}

// Boot time (btime of /proc/stat) plus the start time field of /proc/self/stat, in Unix
// seconds; the current time if /proc cannot be read (the caller registers at start-up).
double start_time_seconds() {
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::ifstream stat("/proc/stat");
  std::string line;
  double boot = -1;
  while (std::getline(stat, line)) {
    if (line.rfind("btime ", 0) == 0) boot = std::strtod(line.c_str() + 6, nullptr);
  }
  std::ifstream self("/proc/self/stat");
  std::string all((std::istreambuf_iterator<char>(self)), std::istreambuf_iterator<char>());
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  const auto close = all.rfind(')');
  if (boot < 0 || close == std::string::npos) return now;
  std::istringstream fields(all.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) {
      return boot +
             std::strtod(field.c_str(), nullptr) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    }
  }
  return now;
}

}  // namespace

void register_process_metrics(Registry& registry) {
  registry.callback("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                    Type::Counter, cpu_seconds);
  registry.callback("process_resident_memory_bytes", "Resident memory size in bytes.", Type::Gauge,
                    [] { return statm_bytes(1); });
  registry.callback("process_virtual_memory_bytes", "Virtual memory size in bytes.", Type::Gauge,
                    [] { return statm_bytes(0); });
  registry.callback("process_open_fds", "Number of open file descriptors.", Type::Gauge, open_fds);
  registry.callback("process_max_fds", "Maximum number of open file descriptors.", Type::Gauge,
                    max_fds);
  const double start = start_time_seconds();
  registry.callback("process_start_time_seconds",
                    "Start time of the process since unix epoch in seconds.", Type::Gauge,
                    [start] { return start; });
}

}  // namespace fed::metrics
