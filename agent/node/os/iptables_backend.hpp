#pragma once
// Which netfilter back end the host's `iptables` command drives. The agent writes the legacy
// x_tables through libiptc; a host whose kube-proxy/CNI use iptables-nft keeps two rule sets.

#include <string>

#include "shared/result/result.hpp"

namespace fed::os {

enum class IptablesBackend { Legacy, NfTables, Unknown };

struct IptablesBackendReport {
  IptablesBackend backend = IptablesBackend::Unknown;
  std::string version_line;  // what `iptables -V` printed, for the log
};

// Runs `iptables -V` and reads "(nf_tables)" / "(legacy)"; Unknown when iptables is missing.
IptablesBackendReport detect_iptables_backend();

}  // namespace fed::os
