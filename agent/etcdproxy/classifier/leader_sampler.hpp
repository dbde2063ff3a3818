#pragma once
// One period's observation of an etcd member for the classifier: GET /metrics and a
// Maintenance.Status call through the project's etcd transport (mTLS), both timed, turned into
// a feature vector against the previous scrape of the same member (the status round trip is the
// fastest of a few calls). Also reports the member's
// view of its peers' round trips (what the MoveLeader policy ranks followers by).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "agent/etcdproxy/classifier/leader_features.hpp"
#include "shared/etcd/gateway_transport.hpp"
#include "shared/etcd/types.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy::classifier {

struct MemberObservation {
  std::optional<FeatureVector> features;  // nullopt on the first scrape of the member
  etcd::StatusResponse status;            // member id, leader id, term
  bool is_leader = false;                 // status.leader == status.header.member_id
  // Mean round trip to each peer (member id -> seconds) since the member started, from
  // etcd_network_peer_round_trip_time_seconds{To="<hex id>"}.
  std::map<std::uint64_t, double> peer_rtt_seconds;
};

class LeaderSampler final {
 public:
  // `transport` outlives the sampler; one feature state per transport member. Each period
  // sends `status_probes` status calls and keeps the fastest: queueing on a busy member
  // inflates some, a delayed network delays all of them.
  LeaderSampler(etcd::GatewayTransport& transport, std::chrono::milliseconds timeout,
                int status_probes = 3);

  // Scrapes member `member` now. Unavailable when either call fails; the feature state of the
  // member is kept (the next success gives rates over the longer interval).
  Result<MemberObservation> observe(std::size_t member);
  // Forgets member `member`'s previous scrape (it became leader after a while as follower).
  void reset(std::size_t member);

 private:
  etcd::GatewayTransport& transport_;
  std::chrono::milliseconds timeout_;
  int status_probes_;
  std::vector<FeatureExtractor> extractors_;
};

}  // namespace fed::etcdproxy::classifier
