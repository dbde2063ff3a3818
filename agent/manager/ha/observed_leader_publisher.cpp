#include "agent/manager/ha/observed_leader_publisher.hpp"

#include <spdlog/spdlog.h>

#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/kube/dynamic_client.hpp"

namespace fed::ha {

std::string host_of_identity(const std::string& identity) {
  const auto slash = identity.find('/');
  return slash == std::string::npos ? "" : identity.substr(0, slash);
}

std::optional<LeaderAnnouncement> observed_announcement(const std::optional<LeaderRecord>& observed,
                                                        const std::string& own_host,
                                                        bool published_none) {
  if (!observed) return LeaderAnnouncement{"None", "", 0, "", std::nullopt, false};
  const std::string host = host_of_identity(observed->holder);
  const bool leads_here = host == own_host;
  if (leads_here && !published_none) return std::nullopt;
  return LeaderAnnouncement{observed->holder,      host,         observed->epoch,
                            observed->acquired_at, std::nullopt, leads_here};
}

ObservedLeaderPublisher::ObservedLeaderPublisher(std::shared_ptr<kube::DynamicClient> client,
                                                 std::string own_host)
    : client_(std::move(client)),
      own_host_(std::move(own_host)),
      worker_([this](std::stop_token stop) { run(stop); }) {}

ObservedLeaderPublisher::~ObservedLeaderPublisher() {
  worker_.request_stop();
  wake_.notify_all();
}

void ObservedLeaderPublisher::observe(const std::optional<LeaderRecord>& observed) {
  {
    std::lock_guard lock(mu_);
    pending_ = observed;
  }
  wake_.notify_all();
}

bool ObservedLeaderPublisher::never_published() const {
  auto cm = client_->get(federation::configmap_ref(fedapi::kLeaderConfigMap));
  return !cm && cm.error().is_not_found();
}

void ObservedLeaderPublisher::run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    std::optional<LeaderRecord> observed;
    {
      std::unique_lock lock(mu_);
      if (!wake_.wait(lock, stop, [this] { return pending_.has_value(); })) return;
      observed = *pending_;
      pending_.reset();
    }
    const auto announcement = observed_announcement(observed, own_host_, said_none_);
    if (!announcement) continue;
    if (announcement->holder == "None" && never_published()) {
      // Right after `init` (or `host add`) the federation etcd may not answer yet: saying "no
      // leader" then would make the leader-writes policy refuse the first `join`, which the
      // policy lets through until a leader was published.
      continue;
    }
    if (auto applied = apply_leader(*client_, *announcement); applied) {
      said_none_ = announcement->holder == "None";
    } else {
      // The next change publishes again; a stale fed-leader on a follower misleads nobody
      // about safety (status says it is what this host observed).
      spdlog::warn("manager: publishing the observed leader: {}", applied.error().message());
    }
  }
}

}  // namespace fed::ha
