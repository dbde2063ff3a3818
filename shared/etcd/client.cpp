#include "shared/etcd/client.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "shared/etcd/codec.hpp"
#include "shared/etcd/codec_cluster.hpp"

namespace fed::etcd {

struct EtcdClient::State {
  ClientOptions options;
  std::unique_ptr<GatewayTransport> transport;
  mutable std::mutex mu;
  std::condition_variable_any wake;  // pollers wait on it; repoll and stop notify
  LeaderTracker tracker;
  Picker picker;
  std::uint64_t repoll_generation = 0;
  std::vector<std::chrono::microseconds> status_latency;
  std::vector<std::jthread> pollers;

  explicit State(ClientOptions o)
      : options(std::move(o)),
        tracker(options.endpoints.size()),
        status_latency(options.endpoints.size()) {}

  // Applies a tracker change: wakes the pollers for a repoll, tells the listener (unlocked).
  void after(const TrackerChange& c, std::unique_lock<std::mutex>& lock) {
    if (c.repoll) ++repoll_generation;
    wake.notify_all();  // pollers (repoll) and wait_for_leader re-check their conditions
    lock.unlock();
    if (c.leader_changed) {
      spdlog::info("etcd: leader {} -> {}",
                   c.old_leader ? transport->endpoint(*c.old_leader) : "none",
                   c.new_leader ? transport->endpoint(*c.new_leader) : "none");
      if (options.on_leader_change) options.on_leader_change(c.old_leader, c.new_leader);
    }
  }

  void observe_header(std::size_t i, const ResponseHeader& h) {
    std::unique_lock lock(mu);
    after(tracker.on_header(i, h), lock);
  }

  void observe_failure(std::size_t i) {
    std::unique_lock lock(mu);
    after(tracker.on_failure(i), lock);
  }

  // One status poll of member `i`; feeds the tracker either way.
  Result<StatusResponse> poll(std::size_t i, std::stop_token stop) {
    GatewayCall c{"/v3/maintenance/status", "{}", options.status_timeout, {}, std::move(stop)};
    GatewayReply r = transport->post(i, c);
    Result<StatusResponse> status =
        r.failure != CallFailure::None
            ? Result<StatusResponse>(Error(ErrorCode::Unavailable, r.failure_message))
        : r.status != 200 || codec::is_error_body(r.body)
            ? Result<StatusResponse>(codec::decode_error(r.status, r.body, "status"))
            : codec::decode_status(r.body);
    std::unique_lock lock(mu);
    if (status) {
      status_latency[i] = r.elapsed;
      after(tracker.on_status(i, *status), lock);
    } else if (r.failure != CallFailure::Cancelled) {
      after(tracker.on_failure(i), lock);
    }
    return status;
  }

  void poll_loop(std::size_t i, std::stop_token stop) {
    std::uint64_t seen = 0;
    while (!stop.stop_requested()) {
      {
        std::unique_lock lock(mu);
        seen = repoll_generation;
      }
      auto result = poll(i, stop);
      if (!result && !stop.stop_requested()) {
        spdlog::debug("etcd: status of {}: {}", transport->endpoint(i), result.error().message());
      }
      std::unique_lock lock(mu);
      wake.wait_for(lock, stop, options.poll_period, [&] { return repoll_generation != seen; });
    }
  }
};

Result<std::unique_ptr<EtcdClient>> EtcdClient::create(ClientOptions options) {
  if (options.poll_period <= std::chrono::milliseconds(0)) {
    return fail(ErrorCode::Invalid, "the etcd status poll period must be positive");
  }
  if (options.max_attempts < 1) options.max_attempts = 1;
  FED_ASSIGN_OR_RETURN(auto transport, GatewayTransport::create(options.endpoints, options.tls,
                                                                options.dial_timeout));
  auto state = std::make_unique<State>(std::move(options));
  state->transport = std::move(transport);
  std::unique_ptr<EtcdClient> client(new EtcdClient(std::move(state)));
  State* s = client->state_.get();
  for (std::size_t i = 0; i < s->transport->size(); ++i) {
    s->pollers.emplace_back([s, i](std::stop_token stop) { s->poll_loop(i, stop); });
  }
  return client;
}

EtcdClient::EtcdClient(std::unique_ptr<State> state) : state_(std::move(state)) {}

EtcdClient::~EtcdClient() {
  stop();
}

void EtcdClient::stop() {
  for (auto& t : state_->pollers) t.request_stop();
  state_->wake.notify_all();
  for (auto& t : state_->pollers) {
    if (t.joinable()) t.join();
  }
}

std::size_t EtcdClient::size() const {
  return state_->transport->size();
}

Result<std::string> EtcdClient::call(std::string_view path, std::string body, Retry retry,
                                     std::string_view what, std::optional<std::size_t> member,
                                     std::optional<std::chrono::milliseconds> timeout) {
  State& s = *state_;
  std::size_t target = 0;
  {
    std::lock_guard lock(s.mu);
    target = member ? *member : s.picker.pick(s.options.policy, s.tracker);
  }
  const int attempts = member ? 1 : s.options.max_attempts;
  Error last(ErrorCode::Unavailable, std::string(what) + ": no attempt made");
  for (int attempt = 0; attempt < attempts; ++attempt) {
    GatewayCall c{std::string(path), body, timeout.value_or(s.options.request_timeout), {}, {}};
    GatewayReply r = s.transport->post(target, c);
    const std::string label = std::string(what) + " on " + s.transport->endpoint(target);
    if (r.failure == CallFailure::None && r.status == 200 && !codec::is_error_body(r.body)) {
      if (auto h = codec::decode_header_only(r.body)) s.observe_header(target, *h);
      return std::move(r.body);
    }
    bool may_retry = false;
    if (r.failure != CallFailure::None) {
      last = Error(ErrorCode::Unavailable, label + ": " + r.failure_message);
      s.observe_failure(target);
      may_retry = retry == Retry::Always || r.failure == CallFailure::Connect;
    } else {
      last = codec::decode_error(r.status, r.body, label);
      // "not leader" and similar answers were refused before being applied.
      may_retry =
          last.code() == ErrorCode::Unavailable &&
          (retry == Retry::Always || last.message().find("not leader") != std::string::npos);
    }
    if (!may_retry) break;
    std::lock_guard lock(s.mu);
    target = s.picker.next_after(target, s.tracker);
  }
  return last;
}

Status EtcdClient::stream(std::string_view path, std::string body, std::string_view what,
                          const std::function<bool(std::string_view)>& on_message,
                          std::stop_token stop) {
  State& s = *state_;
  std::size_t target = 0;
  {
    std::lock_guard lock(s.mu);
    target = s.picker.pick(s.options.policy, s.tracker);
  }
  codec::StreamSplitter splitter;
  bool handler_done = false;
  GatewayCall c{std::string(path), std::move(body), std::chrono::milliseconds(0),
                [&](std::string_view chunk) {
                  for (const auto& m : splitter.feed(chunk)) {
                    if (!on_message(m)) {
                      handler_done = true;
                      return false;
                    }
                  }
                  return true;
                },
                stop};
  GatewayReply r = s.transport->post(target, c);
  const std::string label = std::string(what) + " on " + s.transport->endpoint(target);
  if (handler_done || stop.stop_requested()) return ok();
  if (r.failure != CallFailure::None) {
    s.observe_failure(target);
    return fail(ErrorCode::Unavailable, label + ": " + r.failure_message);
  }
  if (r.status != 200) return codec::decode_error(r.status, r.body, label);
  return fail(ErrorCode::Unavailable, label + ": the member ended the stream");
}

Result<StatusResponse> EtcdClient::status(std::size_t member) {
  if (member >= size())
    return fail(ErrorCode::Invalid, "no etcd member #" + std::to_string(member));
  return state_->poll(member, {});
}

Status EtcdClient::move_leader(std::uint64_t target_member_id) {
  FED_ASSIGN_OR_RETURN(const std::size_t leader, wait_for_leader(state_->options.request_timeout));
  FED_TRY(call("/v3/maintenance/transfer-leadership", codec::encode_move_leader(target_member_id),
               Retry::OnlyUnsent, "move-leader", leader));
  std::unique_lock lock(state_->mu);
  ++state_->repoll_generation;  // learn the new leader now rather than at the next period
  state_->wake.notify_all();
  return ok();
}

Result<std::vector<MemberInfo>> EtcdClient::member_list() {
  FED_ASSIGN_OR_RETURN(const std::string body,
                       call("/v3/cluster/member/list", "{}", Retry::Always, "member list"));
  return codec::decode_member_list(body);
}

Result<MemberAddResponse> EtcdClient::member_add(const std::vector<std::string>& peer_urls,
                                                 bool is_learner) {
  FED_ASSIGN_OR_RETURN(const std::string body, call("/v3/cluster/member/add",
                                                    codec::encode_member_add(peer_urls, is_learner),
                                                    Retry::OnlyUnsent, "member add"));
  return codec::decode_member_add(body);
}

Status EtcdClient::member_promote(std::uint64_t id) {
  FED_TRY(call("/v3/cluster/member/promote", codec::encode_member_id(id), Retry::OnlyUnsent,
               "member promote"));
  return ok();
}

Status EtcdClient::member_remove(std::uint64_t id) {
  FED_TRY(call("/v3/cluster/member/remove", codec::encode_member_id(id), Retry::OnlyUnsent,
               "member remove"));
  return ok();
}

ClusterView EtcdClient::view() const {
  std::lock_guard lock(state_->mu);
  ClusterView v;
  const auto& members = state_->tracker.members();
  for (std::size_t i = 0; i < members.size(); ++i) {
    v.members.push_back({state_->transport->endpoint(i), members[i].id, members[i].healthy,
                         members[i].term, state_->status_latency[i]});
  }
  v.leader = state_->tracker.leader();
  v.term = state_->tracker.term();
  v.leader_changes = state_->tracker.leader_changes();
  return v;
}

std::optional<std::size_t> EtcdClient::leader() const {
  std::lock_guard lock(state_->mu);
  return state_->tracker.leader();
}

Result<std::size_t> EtcdClient::wait_for_leader(std::chrono::milliseconds timeout) {
  State& s = *state_;
  std::unique_lock lock(s.mu);
  if (auto l = s.tracker.leader(); l && !s.tracker.stale()) return *l;
  ++s.repoll_generation;
  s.wake.notify_all();
  const bool found = s.wake.wait_for(
      lock, timeout, [&] { return s.tracker.leader().has_value() && !s.tracker.stale(); });
  if (!found) {
    return fail(ErrorCode::Unavailable, "no etcd leader known after " +
                                            std::to_string(timeout.count()) +
                                            " ms; check that a quorum of members is up");
  }
  return *s.tracker.leader();
}

}  // namespace fed::etcd
