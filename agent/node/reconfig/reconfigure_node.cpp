#include "agent/node/reconfig/reconfigure_node.hpp"

#include <spdlog/spdlog.h>

#include <system_error>
#include <utility>

#include "agent/node/reconfig/config_file.hpp"
#include "agent/node/reconfig/health_gate.hpp"
#include "shared/util/read_file.hpp"
#include "shared/util/write_file_atomic.hpp"

namespace fed::reconfig {
namespace {

using Clock = std::chrono::system_clock;

// One reconfiguration of one node; the steps in the order that keeps it crash-safe.
class Run {
 public:
  Run(NodeClient& node, const ReconfigureRequest& request)
      : node_(node),
        req_(request),
        desired_(to_json(request.changes)),
        config_(on_node(request, request.config_file)),
        backup_(on_node(request, backup_path(request.config_file))) {}

  Result<ReconfigureReport> execute() {
    FED_ASSIGN_OR_RETURN(auto node, node_.get_node());
    FED_ASSIGN_OR_RETURN(auto recorded, progress_from_node(node));
    if (recorded && in_progress(recorded->phase)) return resume(*recorded);
    return start();
  }

 private:
  Result<ReconfigureReport> start() {
    const KubeletObservation seen = node_.observe();
    // A kubelet already running the values is left alone: no backup, no restart.
    if (seen.configz && mismatches(*seen.configz, desired_).empty() &&
        gate_failure(seen, nlohmann::json::object(), Clock::time_point{}).empty()) {
      FED_TRY(record(Phase::Succeeded, "already applied"));
      return ReconfigureReport{Outcome::AlreadyApplied, "the kubelet already runs these values"};
    }
    // Changing a kubelet that is already unhealthy would make a rollback's check meaningless.
    if (auto why = gate_failure(seen, nlohmann::json::object(), Clock::time_point{});
        !why.empty()) {
      return Error(ErrorCode::Unavailable, "the kubelet of node " + node_.node() +
                                               " is not healthy before the change, so it is "
                                               "left untouched: " +
                                               why);
    }
    FED_ASSIGN_OR_RETURN(const std::string current, read_current());
    FED_TRY(new_config_text(current));  // the file must parse, before any write
    // Refuse a change the kubelet would reject at start. Checked against what the kubelet runs
    // (/configz: every file and drop-in merged, defaults filled in), not against the one file
    // rewritten, which may lack a reservation that another drop-in or the defaults provide.
    FED_TRY(check_merged(apply_changes(*seen.configz, req_.changes)));
    progress_.desired = desired_;
    progress_.original = values_at(*seen.configz, req_.changes);
    // The backup is complete on disk before the config file changes in any way, and before
    // Started is recorded: a resumed run trusts the backup it finds, which must not be the one an
    // earlier change left behind.
    FED_TRY(util::write_file_atomic(backup_, current, 0600));
    FED_TRY(record(Phase::Started, ""));
    return apply();
  }

  Result<ReconfigureReport> resume(const Progress& recorded) {
    if (recorded.desired != desired_) {
      return Error(ErrorCode::Conflict,
                   "node " + node_.node() + " has an unfinished change " + recorded.desired.dump() +
                       " in phase " + std::string(to_string(recorded.phase)) +
                       " (annotations kubectl-fed.io/reconfigure-*): run again with those values "
                       "to finish or roll it back first");
    }
    progress_ = recorded;
    spdlog::info("resuming the change on node {} from phase {}", node_.node(),
                 to_string(recorded.phase));
    if (!std::filesystem::exists(backup_)) {
      // Removed by hand since Started was recorded (the backup precedes it): the file is still
      // the old one only in Started, which is the case this recovers.
      FED_ASSIGN_OR_RETURN(const std::string current, read_current());
      FED_TRY(util::write_file_atomic(backup_, current, 0600));
    }
    if (recorded.phase == Phase::RollingBack) return roll_back(recorded.message);
    if (recorded.phase == Phase::Restarted) {
      // The new kubelet may already run the values: finish with the gate, not another restart.
      const auto why = wait_for_gate([this] { return node_.observe(); }, desired_,
                                     Clock::time_point{}, req_.poll_interval, req_.poll_interval);
      if (why.empty()) return succeed();
    }
    return apply();
  }

  Result<ReconfigureReport> apply() {
    FED_ASSIGN_OR_RETURN(const std::string old_text, read_backup());
    FED_ASSIGN_OR_RETURN(const std::string new_text, new_config_text(old_text));
    // Checkpoints go before the new file lands (old config + no checkpoint is a clean start) and
    // again after (the running kubelet may have rewritten one in between).
    FED_TRY(remove_state_files());
    FED_TRY(util::write_file_atomic(config_, new_text, config_mode()));
    FED_TRY(remove_state_files());
    FED_TRY(record(Phase::ConfigWritten, ""));
    const auto since = Clock::now();
    if (auto restarted = restart_kubelet(req_.restart); !restarted) {
      return roll_back(restarted.error().message());
    }
    FED_TRY(record(Phase::Restarted, ""));
    const auto why = wait_for_gate([this] { return node_.observe(); }, desired_, since,
                                   req_.timeout, req_.poll_interval);
    if (!why.empty()) return roll_back(why);
    return succeed();
  }

  Result<ReconfigureReport> succeed() {
    FED_TRY(record(Phase::Succeeded, ""));
    return ReconfigureReport{Outcome::Applied, ""};
  }

  Result<ReconfigureReport> roll_back(const std::string& reason) {
    spdlog::warn("node {}: rolling back: {}", node_.node(), reason);
    FED_TRY(record(Phase::RollingBack, reason));
    FED_ASSIGN_OR_RETURN(const std::string old_text, read_backup());
    FED_TRY(remove_state_files());
    FED_TRY(util::write_file_atomic(config_, old_text, config_mode()));
    FED_TRY(remove_state_files());
    const auto since = Clock::now();
    std::string why;
    if (auto restarted = restart_kubelet(req_.restart); !restarted) {
      why = restarted.error().message();
    } else {
      why = wait_for_gate([this] { return node_.observe(); }, progress_.original, since,
                          req_.timeout, req_.poll_interval);
    }
    if (!why.empty()) {
      const std::string message = "the change failed (" + reason +
                                  ") and the rollback did not bring the old config back (" + why +
                                  "); the old config is in place at " + req_.config_file.string() +
                                  ", repair the kubelet by hand";
      (void)record(Phase::Failed, message);
      return Error(ErrorCode::Internal, message);
    }
    FED_TRY(record(Phase::RolledBack, reason));
    return ReconfigureReport{Outcome::RolledBack, reason};
  }

  // The config file's text now; an empty drop-in when ours does not exist yet.
  Result<std::string> read_current() const {
    auto text = util::read_file(config_);
    if (!text && text.error().code() == ErrorCode::NotFound && req_.drop_in) {
      return render_kubelet_config(empty_kubelet_config(), ConfigFormat::Yaml);
    }
    if (!text) {
      return text.error().with_context("reading the kubelet config " + req_.config_file.string() +
                                       " (--kubelet-config)");
    }
    return text;
  }

  Result<std::string> read_backup() const {
    auto text = util::read_file(backup_);
    if (!text) {
      return text.error().with_context("reading the backup " +
                                       backup_path(req_.config_file).string());
    }
    return text;
  }

  // The new file's text: `old_text` with the changes merged in.
  Result<std::string> new_config_text(const std::string& old_text) const {
    FED_ASSIGN_OR_RETURN(auto parsed, parse_kubelet_config(old_text, req_.config_file.string()));
    return render_kubelet_config(apply_changes(parsed.config, req_.changes), parsed.format);
  }

  // The config file keeps the permissions it had (some vendors make it 0600); a new drop-in
  // gets the kubelet's usual 0644.
  mode_t config_mode() const {
    std::error_code ec;
    const auto st = std::filesystem::status(config_, ec);
    if (ec || !std::filesystem::exists(st)) return 0644;
    return static_cast<mode_t>(st.permissions() & std::filesystem::perms::mask);
  }

  Status remove_state_files() const {
    for (const auto& name : req_.changes.state_files) {
      FED_TRY(util::remove_file_durable(on_node(req_, req_.root_dir / name)));
    }
    return ok();
  }

  Status record(Phase phase, std::string message) {
    progress_.phase = phase;
    progress_.message = std::move(message);
    if (progress_.desired.is_null()) progress_.desired = desired_;
    if (progress_.original.is_null()) progress_.original = nlohmann::json::object();
    spdlog::info("node {}: {}{}", node_.node(), to_string(phase),
                 progress_.message.empty() ? "" : ": " + progress_.message);
    return node_.save(progress_);
  }

  NodeClient& node_;
  const ReconfigureRequest& req_;
  const nlohmann::json desired_;
  const std::filesystem::path config_;  // the config file and its backup as the agent reaches them
  const std::filesystem::path backup_;
  Progress progress_;
};

}  // namespace

std::filesystem::path on_node(const ReconfigureRequest& request,
                              const std::filesystem::path& path) {
  return request.node_root.empty() ? path : request.node_root / path.relative_path();
}

std::filesystem::path backup_path(const std::filesystem::path& config_file) {
  return config_file.string() + ".kubectl-fed-backup";
}

Result<ReconfigureReport> reconfigure_node(NodeClient& node, const ReconfigureRequest& request) {
  return Run(node, request).execute();
}

}  // namespace fed::reconfig
