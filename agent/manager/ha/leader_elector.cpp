#include "agent/manager/ha/leader_elector.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>

namespace fed::ha {
namespace {

// A renewal sent with less time than this left is still worth sending: the deadline, not the
// call, decides whether leadership is kept.
constexpr std::chrono::milliseconds kMinRenewalTimeout{20};

// Sleeps until `until` or a stop request.
void sleep_until(std::chrono::steady_clock::time_point until, std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait_until(lock, stop, until, [] { return false; });
}

etcd::TxnOp put_op(const std::string& key, const LeaderRecord& record) {
  etcd::TxnOp op;
  op.kind = etcd::TxnOp::Kind::Put;
  op.put.key = key;
  op.put.value = encode(record);
  return op;
}

}  // namespace

Status ElectionTimings::validate() const {
  const auto invalid = [](const std::string& why) { return fail(ErrorCode::Invalid, why); };
  if (retry_period.count() <= 0) return invalid("the retry period must be positive");
  if (renew_period.count() <= 0 || renew_period >= renew_deadline) {
    return invalid("the renew period (" + std::to_string(renew_period.count()) +
                   " ms) must be positive and below the renew deadline (" +
                   std::to_string(renew_deadline.count()) + " ms)");
  }
  if (renew_deadline + lease_duration / 10 > lease_duration) {
    return invalid("the renew deadline (" + std::to_string(renew_deadline.count()) +
                   " ms) must stay 10 % of the lease duration below it (" +
                   std::to_string(lease_duration.count()) +
                   " ms): that margin is what keeps two leaders apart");
  }
  return ok();
}

LeaderElector::LeaderElector(etcd::EtcdClient& client, std::string key, std::string identity,
                             ElectionTimings timings, LeaderCallbacks callbacks)
    : client_(client),
      key_(std::move(key)),
      identity_(std::move(identity)),
      timings_(timings),
      callbacks_(std::move(callbacks)) {}

LeaderElector::~LeaderElector() = default;

bool LeaderElector::leading() const {
  std::lock_guard lock(mu_);
  return mine_ && Clock::now() - renewed_at_ < timings_.renew_deadline;
}

std::optional<LeaderRecord> LeaderElector::observed() const {
  std::lock_guard lock(mu_);
  return observed_;
}

std::optional<std::chrono::nanoseconds> LeaderElector::takeover_wait() const {
  std::lock_guard lock(mu_);
  return takeover_wait_;
}

std::optional<etcd::Compare> LeaderElector::fence() const {
  std::lock_guard lock(mu_);
  if (!mine_ || Clock::now() - renewed_at_ >= timings_.renew_deadline) return std::nullopt;
  return holds(key_, *mine_);
}

void LeaderElector::record_sighting(const std::optional<LeaderRecord>& record,
                                    std::int64_t mod_revision, Clock::time_point at) {
  if (mod_revision > 0 && observed_revision_ > 0 && mod_revision < observed_revision_) return;
  if (mod_revision != observed_revision_) {
    observed_revision_ = mod_revision;
    observed_since_ = at;
  }
  observed_ = record;
  if (record) saw_leader_ = true;
}

void LeaderElector::see(const std::optional<LeaderRecord>& record, std::int64_t mod_revision) {
  {
    std::lock_guard lock(mu_);
    record_sighting(record, mod_revision, Clock::now());
  }
  announce();
}

void LeaderElector::announce() {
  std::optional<LeaderRecord> record;
  {
    std::lock_guard lock(mu_);
    // A record released or gone is normally taken within milliseconds: "no leader" is said only
    // once that lasts a lease. Said at once, it raced the new leader's own publication (a
    // standby's "None" written after it, left standing), and the watch sees every resignation.
    if (!observed_ && Clock::now() - observed_since_ < timings_.lease_duration) return;
    const auto term = observed_ ? std::make_pair(observed_->holder, observed_->epoch)
                                : std::make_pair(std::string(), std::int64_t{0});
    if (announced_ == term) return;
    announced_ = term;
    record = observed_;
  }
  if (callbacks_.new_leader) callbacks_.new_leader(record);
}

bool LeaderElector::lease_watched() const {
  std::lock_guard lock(mu_);
  return watch_live_ && observed_ && observed_revision_ > 0 &&
         Clock::now() - observed_since_ < timings_.lease_duration;
}

void LeaderElector::watch_key(std::stop_token stop) {
  bool from_now = false;
  while (!stop.stop_requested() && !abandoned_) {
    etcd::WatchRequest request;
    request.key = key_;
    {
      std::lock_guard lock(mu_);
      // From the revision after the last one seen, so that no renewal in between is missed;
      // after a compaction, from now (a read covers the gap when the lease looks run out).
      if (!from_now && observed_revision_ > 0) request.start_revision = observed_revision_ + 1;
    }
    auto ended = client_.watch(
        request,
        [&](const etcd::WatchResponse& response) {
          std::lock_guard lock(mu_);
          if (response.canceled) {
            from_now = response.compact_revision > 0;
            return false;
          }
          if (response.created) {
            watch_live_ = true;
            from_now = false;
          }
          const auto at = Clock::now();
          for (const auto& event : response.events) {
            std::optional<LeaderRecord> record;
            if (event.type == etcd::WatchEvent::Type::Put) {
              // Unreadable or released: no renewal to wait out, the next tick reads the key.
              if (auto decoded = decode_leader_record(event.kv.value, key_);
                  decoded && !decoded->released()) {
                record = *decoded;
              }
            }
            record_sighting(
                record, event.type == etcd::WatchEvent::Type::Put ? event.kv.mod_revision : 0, at);
            // Released or gone: the candidate reads and takes it now, not at its next tick.
            if (!record) {
              wake_now_ = true;
              wake_.notify_all();
            }
          }
          return !stop.stop_requested();
        },
        stop);
    {
      std::lock_guard lock(mu_);
      watch_live_ = false;
    }
    if (!ended) spdlog::debug("leader election: watching {}: {}", key_, ended.error().message());
    sleep_until(Clock::now() + timings_.retry_period, stop);
  }
}

void LeaderElector::note_read(bool ok) {
  std::optional<bool> report;
  {
    std::lock_guard lock(mu_);
    const auto now = Clock::now();
    if (ok) {
      last_read_ok_ = now;
      if (unreachable_) report = true;
      unreachable_ = false;
    } else if (!unreachable_ && now - last_read_ok_ >= timings_.lease_duration) {
      unreachable_ = true;
      report = false;
    }
  }
  if (report && callbacks_.etcd_reachable) callbacks_.etcd_reachable(*report);
}

bool LeaderElector::try_acquire() {
  etcd::RangeRequest get;
  get.key = key_;
  auto got = client_.range(get);
  note_read(got.has_value());
  if (!got) {
    spdlog::debug("leader election: reading {}: {}", key_, got.error().message());
    return false;
  }
  std::optional<LeaderRecord> current;
  std::int64_t revision = 0;
  if (!got->kvs.empty()) {
    revision = got->kvs.front().mod_revision;
    auto record = decode_leader_record(got->kvs.front().value, key_);
    // An unreadable record is a holder that never renews: it is replaced after lease_duration.
    if (record)
      current = *record;
    else
      spdlog::warn("leader election: {}", record.error().message());
  }
  const bool released = current && current->released();
  see(released ? std::nullopt : current, revision);
  Clock::time_point moved;  // the last move of the key before this takeover
  bool followed = false;    // a leader was seen before it
  {
    std::lock_guard lock(mu_);
    // Absent or released (a resignation): nobody holds it, taken at once.
    if (revision != 0 && !released && Clock::now() - observed_since_ < timings_.lease_duration) {
      return false;
    }
    // Kept now: the watch may see this takeover's own write before the transaction returns.
    moved = observed_since_;
    followed = saw_leader_;
  }
  const LeaderRecord next = next_term(current, identity_, std::chrono::system_clock::now());
  etcd::TxnRequest txn;
  etcd::Compare unchanged;
  unchanged.key = key_;
  unchanged.result = etcd::Compare::Result::Equal;
  // Absent: created by no one since; present: still at the revision that expired.
  unchanged.target = revision == 0 ? etcd::Compare::Target::Create : etcd::Compare::Target::Mod;
  unchanged.number = revision;
  txn.compare.push_back(unchanged);
  txn.success.push_back(put_op(key_, next));
  const auto attempt = Clock::now();
  auto result = client_.txn(txn);
  if (!result || !result->succeeded) return false;
  const auto acquired = Clock::now();
  {
    std::lock_guard lock(mu_);
    mine_ = next;
    renewed_at_ = attempt;
    if (followed) {
      takeover_wait_ = std::chrono::duration_cast<std::chrono::nanoseconds>(acquired - moved);
    }
  }
  see(next, result->header.revision);
  spdlog::info("leader election: {} leads {} (epoch {}{})", identity_, key_, next.epoch,
               current && !released ? ", after " + current->holder : std::string());
  return true;
}

bool LeaderElector::renew() {
  LeaderRecord mine;
  {
    std::lock_guard lock(mu_);
    mine = *mine_;
  }
  etcd::TxnRequest txn;
  txn.compare.push_back(holds(key_, mine));
  txn.success.push_back(put_op(key_, mine));
  const auto start = Clock::now();
  std::chrono::milliseconds left{0};
  {
    std::lock_guard lock(mu_);
    renewing_since_ = start;
    left = std::chrono::duration_cast<std::chrono::milliseconds>(renewed_at_ +
                                                                 timings_.renew_deadline - start);
  }
  // All the time left before the deadline, not the client's fixed timeout: a commit that takes
  // 350 ms (an etcd leader busy for a moment) still renews, where a 300 ms timeout gave up on
  // it and the retry came too late. Safe however late it lands: leadership counts from the
  // START of the last successful renewal, and a candidate waits lease_duration from when it
  // saw that renewal committed.
  auto result = client_.txn(txn, std::max(left, kMinRenewalTimeout));
  std::lock_guard lock(mu_);
  renewing_since_.reset();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  if (took > 2 * timings_.renew_period) {
    spdlog::warn("leader election: a renewal of {} took {} ms ({})", key_, took.count(),
                 result ? (result->succeeded ? "done" : "refused") : result.error().message());
  }
  if (result && result->succeeded) {
    renewed_at_ = start;
    observed_revision_ = result->header.revision;
    observed_since_ = start;
    return true;
  }
  if (result) {
    spdlog::warn("leader election: {} lost {}: the record is no longer its own", identity_, key_);
    return false;
  }
  if (Clock::now() - renewed_at_ < timings_.renew_deadline) {
    spdlog::debug("leader election: renewing {}: {}", key_, result.error().message());
    return true;
  }
  spdlog::warn("leader election: {} lost {}: no renewal for {} ms ({})", identity_, key_,
               timings_.renew_deadline.count(), result.error().message());
  return false;
}

void LeaderElector::resign() {
  std::optional<LeaderRecord> mine;
  {
    std::lock_guard lock(mu_);
    mine.swap(mine_);
  }
  if (!mine) return;
  etcd::TxnRequest txn;
  txn.compare.push_back(holds(key_, *mine));
  txn.success.push_back(put_op(key_, released(*mine)));
  auto result = client_.txn(txn);
  if (!result) {
    spdlog::warn("leader election: resigning {}: {} (a standby takes over after the lease)", key_,
                 result.error().message());
    return;
  }
  spdlog::info("leader election: {} resigned {}", identity_, key_);
}

void LeaderElector::log_loss() const {
  std::lock_guard lock(mu_);
  const auto now = Clock::now();
  const auto ms = [&](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now - t).count();
  };
  if (renewing_since_) {
    spdlog::warn(
        "leader election: {} lost {}: the last renewal started {} ms ago; the one in "
        "flight was sent {} ms ago and etcd has not answered it",
        identity_, key_, ms(renewed_at_), ms(*renewing_since_));
  } else {
    spdlog::warn(
        "leader election: {} lost {}: the last renewal started {} ms ago and none is in "
        "flight (this process did not get to send one)",
        identity_, key_, ms(renewed_at_));
  }
}

void LeaderElector::lose() {
  if (lost_.exchange(true)) return;
  if (callbacks_.stopped_leading) callbacks_.stopped_leading();
}

void LeaderElector::run(std::stop_token stop) {
  bool is_leader = false;
  watcher_ = std::jthread([this](std::stop_token done) { watch_key(done); });
  while (!stop.stop_requested()) {
    if (abandoned_) return;
    const auto next = Clock::now() + (is_leader ? timings_.renew_period : timings_.retry_period);
    if (!is_leader) {
      if (lease_watched()) {
        // A renewal seen within the lease: etcd answers, and the leader is alive.
        note_read(true);
        announce();
      } else if (try_acquire()) {
        is_leader = true;
        watcher_.request_stop();  // a leader learns the record from its own renewals
        LeaderRecord record;
        {
          std::lock_guard lock(mu_);
          record = *mine_;
        }
        watchdog_ = std::jthread([this](std::stop_token done) {
          while (!done.stop_requested() && !abandoned_) {
            if (!leading()) {
              if (!stopping_) {
                log_loss();
                lose();
              }
              return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
        });
        if (callbacks_.started_leading) {
          started_ = std::jthread([this, record] { callbacks_.started_leading(record); });
        }
        continue;
      }
    } else if (!renew()) {
      {
        std::lock_guard lock(mu_);
        mine_.reset();
      }
      lose();
      return;
    }
    std::unique_lock lock(mu_);
    wake_.wait_until(lock, stop, next, [this] { return wake_now_; });
    wake_now_ = false;
  }
  watcher_.request_stop();
  if (is_leader) {
    stopping_ = true;
    resign();
  }
}

}  // namespace fed::ha
