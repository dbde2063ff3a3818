#pragma once
// The standard process_* metrics (as client_golang's process collector exports them), read
// from /proc at each scrape: CPU seconds, resident and virtual memory, open and maximum file
// descriptors, and the process start time.

#include "shared/metrics/registry.hpp"

namespace fed::metrics {

// Registers process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_open_fds, process_max_fds and
// process_start_time_seconds. A value that cannot be read renders as NaN. Call once.
void register_process_metrics(Registry& registry);

}  // namespace fed::metrics
