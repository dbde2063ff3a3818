#include "shared/metrics/process_metrics.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>

namespace {

// The value of the unlabelled sample `name` in `text`, or -1 if absent.
double sample(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + " ", 0) == 0) return std::strtod(line.c_str() + name.size() + 1, nullptr);
  }
  return -1;
}

}  // namespace

TEST_CASE("process metrics read plausible values from /proc") {
  fed::metrics::Registry r;
  fed::metrics::register_process_metrics(r);
  const std::string text = r.render();
  CHECK(text.find("# TYPE process_cpu_seconds_total counter\n") != std::string::npos);
  CHECK(text.find("# TYPE process_resident_memory_bytes gauge\n") != std::string::npos);
  CHECK(sample(text, "process_cpu_seconds_total") >= 0);
  CHECK(sample(text, "process_resident_memory_bytes") > 1024 * 1024);
  CHECK(sample(text, "process_virtual_memory_bytes") >=
        sample(text, "process_resident_memory_bytes"));
  CHECK(sample(text, "process_open_fds") >= 3);
  CHECK(sample(text, "process_max_fds") >= sample(text, "process_open_fds"));
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const double start = sample(text, "process_start_time_seconds");
  CHECK(start <= now + 1);
  CHECK(start > now - 3600);  // this test process started less than an hour ago
}
