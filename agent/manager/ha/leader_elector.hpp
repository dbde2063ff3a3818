#pragma once
// LeaderElector: exactly one active manager in the federation (seed 000, docs/HA.md), elected
// through one etcd key (leader_record.hpp) rather than an etcd lease, whose TTL is whole seconds
// and expires on the etcd leader's tick — too coarse for a failover under a second.
//
// The rule, all on monotonic clocks:
// - a leader renews every renew_period with a transaction "the value is still mine → write it
//   again"; it counts itself leader only until renew_deadline after the START of its last
//   successful renewal (leading()), and stops there even if its thread is stuck;
// - a candidate watches the key and takes over — a transaction "the key is still at the
//   revision I saw → write the next term" — once lease_duration has passed since it first saw
//   that revision without seeing another. The renewals arrive as watch events, so a candidate
//   reads the key (every retry_period) only while the lease looks run out or its watch is
//   down: a linearizable read every 50 ms from each standby was most of the federation etcd's
//   work (with three hosts of two managers each, 8 of a follower member's 12 % of a core).
// Why that is safe: the renewal the candidate last saw committed after the leader started it,
// and the candidate saw it after it committed; so the takeover comes at least lease_duration
// after that start, while the old leader stopped at renew_deadline after it. lease_duration -
// renew_deadline is the margin for the two clocks' rates; ElectionTimings::validate keeps it
// at 10 % of lease_duration at least (quartz drifts by parts per million).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>

#include "agent/manager/ha/leader_record.hpp"
#include "shared/etcd/client.hpp"
#include "shared/result/result.hpp"

namespace fed::ha {

struct ElectionTimings {
  std::chrono::milliseconds lease_duration{600};
  std::chrono::milliseconds renew_deadline{450};
  std::chrono::milliseconds renew_period{100};
  std::chrono::milliseconds retry_period{50};

  // Invalid, naming the setting, unless 0 < retry_period, renew_period < renew_deadline and
  // renew_deadline + 10 % of lease_duration <= lease_duration.
  Status validate() const;
};

struct LeaderCallbacks {
  // On a thread of its own, once this process leads (it may block: renewals go on meanwhile).
  std::function<void(const LeaderRecord&)> started_leading;
  // Once leadership is lost (not on a requested stop): fence now. Called once, by a watchdog
  // thread the moment leading() turns false — even while the elector's thread is stuck in a
  // call to etcd — or by the elector's thread when a renewal finds the record taken.
  std::function<void()> stopped_leading;
  // Whenever the record seen changes holder or epoch, including to none (once none has lasted
  // a lease: a resignation is taken over within milliseconds).
  std::function<void(const std::optional<LeaderRecord>&)> new_leader;
  // A candidate's reads of the record have failed for lease_duration (false: its member has no
  // quorum, or is gone; it reads once its watch has shown no renewal for a lease), and the
  // first read or watched renewal that succeeds after that (true). Observation only:
  // the election itself does not depend on it.
  std::function<void(bool reachable)> etcd_reachable = {};
};

class LeaderElector final {
 public:
  // `client` must outlive the elector; its request_timeout should be below renew_deadline.
  LeaderElector(etcd::EtcdClient& client, std::string key, std::string identity,
                ElectionTimings timings, LeaderCallbacks callbacks);
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Campaigns, then renews while leading. Returns when `stop` is requested (a leader resigns:
  // it releases its record so that a standby takes over at once) or when leadership is lost
  // (after stopped_leading).
  void run(std::stop_token stop);

  // True while this process leads: within renew_deadline of its last successful renewal.
  bool leading() const;
  // The record this process saw last: the federation's leader as far as it knows.
  std::optional<LeaderRecord> observed() const;
  // The compare every write of the leader carries; none while not leading.
  std::optional<etcd::Compare> fence() const;
  // How long the federation went without a leader before this process took over, as this
  // process saw it: on its monotonic clock, from the last move of the key it saw (the previous
  // leader's last renewal, or its resignation) to its own successful acquisition. At least
  // lease_duration after a crash; about one transaction after a resignation. Set before
  // started_leading is called; empty before that and when this process never saw a leader (the
  // federation's first, or a key already absent when it started).
  std::optional<std::chrono::nanoseconds> takeover_wait() const;
  const std::string& key() const { return key_; }

  // Makes run() return at its next step without resigning or calling back: what a crash looks
  // like to the other managers.
  void abandon_for_test() { abandoned_ = true; }
  const std::string& identity() const { return identity_; }

 private:
  using Clock = std::chrono::steady_clock;

  // One look at the key as a candidate; true once this process leads.
  bool try_acquire();
  // The candidate's watch on the key, on a thread of its own until stopped or leading.
  void watch_key(std::stop_token stop);
  // True while the watch is up and the last renewal it saw is younger than lease_duration:
  // nothing to read, nobody to replace.
  bool lease_watched() const;
  // One renewal; false once leadership is lost.
  bool renew();
  void resign();
  // Says why the watchdog found the leadership gone: slow etcd, or no renewal sent.
  void log_loss() const;
  // Calls stopped_leading, once.
  void lose();
  // A read's or a watch event's view of the record (mu_ held): a revision older than one seen
  // already (a watch event that lagged behind a read) changes nothing.
  void record_sighting(const std::optional<LeaderRecord>& record, std::int64_t mod_revision,
                       Clock::time_point at);
  void see(const std::optional<LeaderRecord>& record, std::int64_t mod_revision);
  // Calls new_leader if the holder or epoch seen differs from the last one announced; from the
  // elector's thread only, whichever thread saw it; no leader only once that lasts a lease.
  void announce();
  // Tracks whether the candidate's reads succeed (a renewal watched within the lease counts
  // as one); calls etcd_reachable on a change.
  void note_read(bool ok);

  etcd::EtcdClient& client_;
  const std::string key_, identity_;
  const ElectionTimings timings_;
  LeaderCallbacks callbacks_;

  mutable std::mutex mu_;
  std::optional<LeaderRecord> observed_;
  std::int64_t observed_revision_ = -1;  // -1: nothing read yet; 0: no key
  Clock::time_point observed_since_;
  Clock::time_point last_read_ok_ = Clock::now();
  bool unreachable_ = false;          // reported unreachable, not yet reachable again
  bool saw_leader_ = false;           // some record was read: a takeover follows a leader
  bool watch_live_ = false;           // the watch on the key is created and streaming
  bool wake_now_ = false;             // the watch saw the record released or deleted
  std::condition_variable_any wake_;  // the elector's sleep, cut short by wake_now_
  std::optional<std::pair<std::string, std::int64_t>> announced_;  // holder, epoch
  std::optional<std::chrono::nanoseconds> takeover_wait_;
  std::optional<LeaderRecord> mine_;  // set while leading
  Clock::time_point renewed_at_;      // start of the last successful renewal
  // Start of the renewal in flight, if any: a loss says whether etcd was answering slowly or
  // not asked (this process starved), which is what tells the two apart afterwards.
  std::optional<Clock::time_point> renewing_since_;
  std::atomic<bool> abandoned_{false};
  std::atomic<bool> stopping_{false};  // a requested stop: resigning is no loss
  std::atomic<bool> lost_{false};
  std::jthread started_;   // runs started_leading
  std::jthread watchdog_;  // fences the moment leading() turns false
  std::jthread watcher_;   // watch_key, while a candidate
};

}  // namespace fed::ha
