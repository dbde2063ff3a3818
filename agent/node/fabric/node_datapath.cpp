#include "agent/node/fabric/node_datapath.hpp"

#include <sys/stat.h>

#include <condition_variable>
#include <mutex>

#include <spdlog/spdlog.h>

#include "agent/node/fabric/node_reconciler.hpp"
#include "agent/node/fabric/state_source.hpp"
#include "agent/node/fabric/uninstall.hpp"
#include "agent/node/os/iptables_backend.hpp"
#include "agent/node/os/linux/iptc_nat_table.hpp"
#include "agent/node/os/linux/netlink_link_manager.hpp"
#include "agent/node/os/linux/netlink_route_table.hpp"
#include "agent/node/os/linux/nft_dnat_table.hpp"
#include "shared/kube/controller.hpp"
#include "shared/kube/queue_rate_limiter.hpp"

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

// The file-fed datapath's passes with the log lines operators and the netns tests read. An
// invalid state leaves the kernel alone and is read again at the next resync (or file change);
// any other failure goes back to the controller, whose queue retries it with backoff.
class LoggedPasses final : public kube::Reconciler {
 public:
  LoggedPasses(NodeReconciler& passes, std::chrono::milliseconds resync)
      : passes_(passes), resync_(resync) {}

  Result<kube::Requeue> reconcile(const kube::Request& request) override {
    auto result = passes_.reconcile(request);
    if (result) {
      spdlog::debug("datapath: pass converged; next resync in {} ms", result->after.count());
      return result;
    }
    if (result.error().code() != ErrorCode::Invalid) return result;
    spdlog::error("datapath: {} (kernel left as it was; waiting for the state to change)",
                  result.error().message());
    return kube::Requeue{resync_, false};
  }

 private:
  NodeReconciler& passes_;
  std::chrono::milliseconds resync_;
};

// Runs passes until stopped, through a one-key controller as the API-fed node role does: a pass
// asks for the next resync, failures back off from kMinBackoff to the resync period, and a
// change of the file enqueues a pass at once.
void run_loop(NodeReconciler& reconciler, const NodeOptions& options, std::stop_token stop) {
  LoggedPasses passes(reconciler, options.resync_period);
  kube::ControllerOptions controller_options;
  controller_options.name = "datapath";
  controller_options.workers = 1;  // one kernel, one writer
  controller_options.rate_limiter =
      std::make_unique<kube::ItemExponentialRateLimiter>(kMinBackoff, options.resync_period);
  kube::Controller controller(passes, std::move(controller_options));
  const kube::Request key{"", "datapath"};
  if (auto started = controller.start(); !started) {  // no informers: nothing to wait for
    spdlog::error("datapath: {}", started.error().message());
    return;
  }
  controller.queue().add(key);
  FileStamp seen = stamp(options.state_file);
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  while (!stop.stop_requested()) {
    cv.wait_for(lock, stop, kPollInterval, [] { return false; });
    if (const FileStamp now = stamp(options.state_file); now != seen) {
      seen = now;
      controller.queue().add(key);
    }
  }
  controller.stop();
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
  os::NftDnatTable dnat;
  DatapathDeps deps{**routes, **links, nat, dnat};

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
