#include "agent/etcdproxy/classifier/leader_sampler.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "shared/etcd/codec_cluster.hpp"

namespace fed::etcdproxy::classifier {
namespace {

double seconds(std::chrono::microseconds us) {
  return static_cast<double>(us.count()) / 1e6;
}

Status check(const etcd::GatewayReply& reply, std::string_view what, const std::string& endpoint) {
  if (reply.failure != etcd::CallFailure::None) {
    return fail(ErrorCode::Unavailable, std::string(what) + ": " + reply.failure_message);
  }
  if (reply.status != 200) {
    return fail(ErrorCode::Unavailable,
                std::string(what) + " on " + endpoint + ": HTTP " + std::to_string(reply.status));
  }
  return ok();
}

}  // namespace

LeaderSampler::LeaderSampler(etcd::GatewayTransport& transport, std::chrono::milliseconds timeout,
                             int status_probes)
    : transport_(transport),
      timeout_(timeout),
      status_probes_(status_probes < 1 ? 1 : status_probes),
      extractors_(transport.size()) {}

void LeaderSampler::reset(std::size_t member) {
  extractors_.at(member).reset();
}

Result<MemberObservation> LeaderSampler::observe(std::size_t member) {
  const auto& endpoint = transport_.endpoint(member);
  etcd::GatewayCall status_call;
  status_call.path = "/v3/maintenance/status";
  status_call.body = "{}";
  status_call.timeout = timeout_;
  const auto status_reply = transport_.post(member, status_call);
  FED_TRY(check(status_reply, "status", endpoint));
  FED_ASSIGN_OR_RETURN(auto status, etcd::codec::decode_status(status_reply.body));
  auto fastest = status_reply.elapsed;
  for (int i = 1; i < status_probes_; ++i) {
    const auto again = transport_.post(member, status_call);
    if (again.failure == etcd::CallFailure::None && again.status == 200) {
      fastest = std::min(fastest, again.elapsed);
    }
  }

  etcd::GatewayCall metrics_call;
  metrics_call.path = "/metrics";
  metrics_call.timeout = timeout_;
  const auto at = FeatureExtractor::Clock::now();
  const auto metrics_reply = transport_.get(member, metrics_call);
  FED_TRY(check(metrics_reply, "GET /metrics", endpoint));
  auto scrape = Scrape::parse(metrics_reply.body);
  if (!scrape) return std::move(scrape).error().with_context(endpoint + "/metrics");

  MemberObservation out;
  out.is_leader = status.leader != 0 && status.leader == status.header.member_id;
  out.status = std::move(status);
  out.features = extractors_.at(member).observe(
      *scrape, at, Probes{seconds(metrics_reply.elapsed), seconds(fastest)});
  for (const auto& to :
       scrape->label_values("etcd_network_peer_round_trip_time_seconds_count", "To")) {
    const auto h = scrape->histogram("etcd_network_peer_round_trip_time_seconds", {{"To", to}});
    if (!h || h->count <= 0) continue;
    const std::uint64_t id = std::strtoull(to.c_str(), nullptr, 16);
    if (id != 0) out.peer_rtt_seconds[id] = h->sum / h->count;
  }
  return out;
}

}  // namespace fed::etcdproxy::classifier
