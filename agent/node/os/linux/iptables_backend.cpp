#include "agent/node/os/iptables_backend.hpp"

#include <cstdio>

#include "shared/raii/c_handle.hpp"

namespace fed::os {
namespace {

void close_pipe(FILE* f) {
  ::pclose(f);
}
using PipeHandle = CHandle<FILE, close_pipe>;

}  // namespace

IptablesBackendReport detect_iptables_backend() {
  IptablesBackendReport report;
  PipeHandle pipe(::popen("iptables -V 2>/dev/null", "r"));
  if (!pipe) return report;
  char line[256] = {};
  if (std::fgets(line, sizeof line, pipe.get()) == nullptr) return report;
  report.version_line = line;
  while (!report.version_line.empty() &&
         (report.version_line.back() == '\n' || report.version_line.back() == '\r')) {
    report.version_line.pop_back();
  }
  if (report.version_line.find("nf_tables") != std::string::npos) {
    report.backend = IptablesBackend::NfTables;
  } else if (report.version_line.find("legacy") != std::string::npos) {
    report.backend = IptablesBackend::Legacy;
  }
  return report;
}

}  // namespace fed::os
