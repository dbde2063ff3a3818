#include "fabric/node_datapath.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>

#include <spdlog/spdlog.h>

#include "fabric/node_reconciler.hpp"
#include "fabric/state_source.hpp"
#include "fabric/uninstall.hpp"
#include "os/iptables_backend.hpp"
#include "os/linux/iptc_nat_table.hpp"
#include "os/linux/netlink_link_manager.hpp"
#include "os/linux/netlink_route_table.hpp"

namespace fed::fabric {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(200);
constexpr auto kMinBackoff = std::chrono::milliseconds(500);

// Identity of the state file's content for change detection without inotify.
struct FileStamp {
  long long mtime_ns = -1;
  long long size = -1;
  unsigned long long inode = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

FileStamp stamp(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return {};
  return FileStamp{static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
                   static_cast<long long>(st.st_size), static_cast<unsigned long long>(st.st_ino)};
}

int exit_code_for(const Error& e) {
  return e.code() == ErrorCode::Invalid ? kExitInvalid : kExitFailure;
}

// Runs passes until stopped: after a change of the file, after the resync period, and with a
// doubling backoff after a retryable failure.
void run_loop(NodeReconciler& reconciler, const NodeOptions& options, std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  auto backoff = kMinBackoff;
  const kube::Request key{"", "datapath"};
  while (!stop.stop_requested()) {
    FileStamp before = stamp(options.state_file);
    auto result = reconciler.reconcile(key);
    auto wait = options.resync_period;
    if (result) {
      backoff = kMinBackoff;
      spdlog::debug("datapath: pass converged; next resync in {} ms", wait.count());
    } else if (result.error().code() == ErrorCode::Invalid) {
      spdlog::error("datapath: {} (kernel left as it was; waiting for the state to change)",
                    result.error().message());
    } else {
      spdlog::warn("datapath: {} (retrying in {} ms)", result.error().message(), backoff.count());
      wait = std::min(backoff, options.resync_period);
      backoff = std::min(backoff * 2, options.resync_period);
    }
    auto deadline = std::chrono::steady_clock::now() + wait;
    std::unique_lock lock(mu);
    while (!stop.stop_requested() && std::chrono::steady_clock::now() < deadline) {
      cv.wait_for(lock, stop, std::min<std::chrono::nanoseconds>(kPollInterval, wait),
                  [] { return false; });
      if (stamp(options.state_file) != before) break;
    }
  }
}

}  // namespace

void warn_if_nftables_backend() {
  auto report = os::detect_iptables_backend();
  if (report.backend == os::IptablesBackend::NfTables) {
    spdlog::warn(
        "host iptables is the nf_tables variant (\"{}\"), but fed-agent writes the legacy "
        "x_tables through libiptc: its FED- chains appear in iptables-legacy-save, not in "
        "`iptables -t nat -S`; see docs/DATAPATH.md",
        report.version_line);
  } else if (report.backend == os::IptablesBackend::Unknown) {
    spdlog::info("could not tell the host iptables back end ({}); fed-agent writes legacy tables",
                 report.version_line.empty() ? "iptables not found" : report.version_line);
  }
}

int run_node_datapath(const NodeOptions& options, std::stop_token stop,
                      metrics::Registry& registry) {
  warn_if_nftables_backend();
  auto routes =
      os::NetlinkRouteTable::create(options.datapath.route_table, options.datapath.rule_priority);
  auto links = os::NetlinkLinkManager::create();
  if (!routes || !links) {
    spdlog::error("datapath: {}", routes ? links.error().message() : routes.error().message());
    return kExitFailure;
  }
  os::IptcNatTable nat;
  DatapathDeps deps{**routes, **links, nat};

  if (options.mode == DatapathMode::Uninstall) {
    auto s = uninstall_datapath(deps, options.datapath);
    if (!s) {
      spdlog::error("datapath: {}", s.error().message());
      return kExitFailure;
    }
    spdlog::info("datapath: uninstalled");
    return kExitOk;
  }

  FileNodeStateSource source(options.state_file);
  DatapathMetrics metrics(registry);
  NodeReconciler reconciler(deps, source, options.datapath, options.resync_period, &metrics);
  if (options.mode == DatapathMode::Once) {
    auto r = reconciler.reconcile(kube::Request{"", "datapath"});
    if (!r) {
      spdlog::error("datapath: {}", r.error().message());
      return exit_code_for(r.error());
    }
    spdlog::info("datapath: converged");
    return kExitOk;
  }
  run_loop(reconciler, options, stop);
  return kExitOk;
}

}  // namespace fed::fabric
