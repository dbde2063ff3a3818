#pragma once
// Every host says who leads (docs/HA.md): a manager that does not lead writes the leader it
// observes into its own host's fed-leader — the holder, its host (the identity's prefix), epoch
// and since — or holder "None" while it cannot read the federation etcd (no quorum) or nobody
// holds the record. The leader's own host is left to the leader, which also knows its failover
// time. A worker thread writes the latest wish only, so the elector's thread never waits on
// the API server.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "agent/manager/ha/leader_announcement.hpp"
#include "agent/manager/ha/leader_record.hpp"

namespace fed::ha {

// The host cluster in a manager identity "HOST/POD_PID"; empty without a '/'.
std::string host_of_identity(const std::string& identity);

// What a non-leading manager on `own_host` publishes for `observed` (none: nobody leads);
// nullopt when the leader is on `own_host` (it publishes itself) — unless this manager's last
// write said "None" (`published_none`), which may have landed after the leader's own: then the
// leader again, role leader. Pure.
std::optional<LeaderAnnouncement> observed_announcement(const std::optional<LeaderRecord>& observed,
                                                        const std::string& own_host,
                                                        bool published_none = false);

class ObservedLeaderPublisher final {
 public:
  ObservedLeaderPublisher(std::shared_ptr<kube::DynamicClient> client, std::string own_host);
  ~ObservedLeaderPublisher();
  ObservedLeaderPublisher(const ObservedLeaderPublisher&) = delete;
  ObservedLeaderPublisher& operator=(const ObservedLeaderPublisher&) = delete;

  // Publishes `observed` soon (a later call replaces an unwritten earlier one).
  void observe(const std::optional<LeaderRecord>& observed);

 private:
  void run(std::stop_token stop);
  // Whether this host has no fed-leader yet: no leader was ever published here.
  bool never_published() const;

  std::shared_ptr<kube::DynamicClient> client_;
  const std::string own_host_;
  std::mutex mu_;
  std::condition_variable_any wake_;
  std::optional<std::optional<LeaderRecord>> pending_;
  bool said_none_ = false;  // the last fed-leader this wrote said "None" (worker thread only)
  std::jthread worker_;
};

}  // namespace fed::ha
