#pragma once
// Whether a peer gateway still answers over the tunnel (issue 29, docs/DATAPATH.md "A member
// lost"): the gateway's agent sends an ICMP echo to each peer's tunnel address every
// interval, and ProbeHistory turns the answers into a verdict. WireGuard's own signal, the
// last handshake, is minutes old by design; these echoes say within seconds that the path to a
// member's pods is gone, so the host stops sending them Service traffic. Pure: the caller
// passes the clock.
//
// Why it cannot flap under load: a peer is Silent only when at least `min_unanswered` echoes,
// spanning at least `silent_after`, each given `reply_timeout` to come back, all went
// unanswered — an agent starved of CPU sends fewer echoes and so counts fewer misses, and the
// caller reads every queued answer before it asks for a verdict. It Answers again only after
// `answers_to_recover` answers in a row. A peer that never answered is Unknown, not Silent:
// a firewall that drops echoes to the tunnel address must not withdraw a working member.

#include <chrono>
#include <cstdint>
#include <deque>
#include <utility>

namespace fed::tunnel {

using ProbeClock = std::chrono::steady_clock;

struct ProbeTiming {
  std::chrono::milliseconds interval{500};
  std::chrono::milliseconds reply_timeout{400};
  std::chrono::milliseconds silent_after{2000};
  int min_unanswered = 4;
  int answers_to_recover = 2;
};

enum class PeerAnswer { Unknown, Answering, Silent };

class ProbeHistory final {
 public:
  explicit ProbeHistory(ProbeTiming timing = {}) : timing_(timing) {}

  // Echo `seq` went out at `at`.
  void sent(std::uint16_t seq, ProbeClock::time_point at);
  // The answer to echo `seq` arrived (an unknown or stale `seq` is ignored).
  void answered(std::uint16_t seq, ProbeClock::time_point at);
  // The verdict at `now`; call after every queued answer was passed to answered().
  PeerAnswer verdict(ProbeClock::time_point now);

 private:
  ProbeTiming timing_;
  PeerAnswer state_ = PeerAnswer::Unknown;
  // Echoes sent after the last answered one, oldest first (bounded: see sent()).
  std::deque<std::pair<std::uint16_t, ProbeClock::time_point>> outstanding_;
  int answers_run_ = 0;  // answers since an echo last went unanswered, for recovery
};

}  // namespace fed::tunnel
