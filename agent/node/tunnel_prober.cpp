#include "agent/node/tunnel_prober.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <random>

#include <spdlog/spdlog.h>

#include "agent/node/tunnel/icmp_echo.hpp"

namespace fed::federation {
namespace {

using tunnel::PeerAnswer;
using tunnel::ProbeClock;

const char* name_of(PeerAnswer a) {
  switch (a) {
    case PeerAnswer::Unknown:
      return "unknown";
    case PeerAnswer::Answering:
      return "answering";
    case PeerAnswer::Silent:
      return "silent";
  }
  return "?";
}

}  // namespace

TunnelProber::TunnelProber(tunnel::ProbeTiming timing, std::function<void()> on_change)
    : timing_(timing), on_change_(std::move(on_change)) {
  // The raw socket sees every echo reply on the node: the identifier tells ours apart.
  std::random_device rd;
  id_ = static_cast<std::uint16_t>(rd() ^ static_cast<unsigned>(::getpid()));
}

TunnelProber::~TunnelProber() {
  stop();
}

Status TunnelProber::start() {
  FED_ASSIGN_OR_RETURN(auto socket, os::IcmpSocket::open());
  socket_.emplace(std::move(socket));
  thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
  return ok();
}

void TunnelProber::stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

void TunnelProber::set_targets(const std::vector<ProbeTarget>& targets) {
  std::lock_guard lock(mu_);
  std::map<std::string, Peer> next;
  for (const auto& t : targets) {
    auto it = peers_.find(t.name);
    if (it != peers_.end() && it->second.address == t.address) {
      next.emplace(t.name, std::move(it->second));
    } else {
      next.emplace(t.name, Peer{t.address, tunnel::ProbeHistory(timing_), PeerAnswer::Unknown});
    }
  }
  peers_ = std::move(next);
}

PeerAnswer TunnelProber::answer(const std::string& name) const {
  std::lock_guard lock(mu_);
  const auto it = peers_.find(name);
  return it == peers_.end() ? PeerAnswer::Unknown : it->second.answer;
}

void TunnelProber::run(const std::stop_token& stop) {
  auto next = ProbeClock::now();
  while (!stop.stop_requested()) {
    const auto now = ProbeClock::now();
    if (now >= next) {
      send_round(now);
      next += timing_.interval;
      if (next <= now) next = now + timing_.interval;  // we were starved: no burst to catch up
    }
    // Judged every fifth of the interval, not only before each round: a silence is reported
    // when it reaches its length, not up to an interval later.
    read_replies(std::min(next, ProbeClock::now() + timing_.interval / 5));
    if (judge(ProbeClock::now()) && on_change_) on_change_();
  }
}

void TunnelProber::send_round(ProbeClock::time_point now) {
  std::vector<std::pair<net::Ipv4, std::uint16_t>> echoes;
  {
    std::lock_guard lock(mu_);
    for (auto& [name, peer] : peers_) {
      const std::uint16_t seq = ++seq_;
      peer.history.sent(seq, now);
      echoes.emplace_back(peer.address, seq);
    }
  }
  // A failed send (no route yet) is an echo without answer, as a lost one is.
  for (const auto& [address, seq] : echoes) {
    (void)socket_->send(address, tunnel::echo_request(id_, seq));
  }
}

void TunnelProber::read_replies(ProbeClock::time_point until) {
  std::array<std::uint8_t, 1500> buffer{};
  // A flood of foreign ICMP must not keep the verdicts from being judged.
  for (int budget = 4096; budget > 0; --budget) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - ProbeClock::now());
    auto n = socket_->receive(buffer, std::max(left, std::chrono::milliseconds(0)));
    if (!n) {
      spdlog::warn("tunnel probe: {}", n.error().message());
      return;
    }
    if (*n == 0) {
      if (left.count() <= 0) return;  // drained, and the round is due
      continue;
    }
    const auto reply = tunnel::parse_echo_reply(std::span(buffer.data(), *n));
    if (!reply || reply->id != id_) continue;
    const auto at = ProbeClock::now();
    std::lock_guard lock(mu_);
    for (auto& [name, peer] : peers_) {
      if (peer.address == reply->source) peer.history.answered(reply->seq, at);
    }
  }
}

bool TunnelProber::judge(ProbeClock::time_point now) {
  bool changed = false;
  std::lock_guard lock(mu_);
  for (auto& [name, peer] : peers_) {
    const PeerAnswer a = peer.history.verdict(now);
    if (a == peer.answer) continue;
    // Unknown -> answering is the first answer ever: nothing to report.
    if (peer.answer != PeerAnswer::Unknown) {
      spdlog::info("tunnel probe: Peering {}: the peer gateway's tunnel address {} is {}", name,
                   peer.address.str(), name_of(a));
      changed = true;
    }
    peer.answer = a;
  }
  return changed;
}

}  // namespace fed::federation
