#include "agent/node/tunnel/probe_history.hpp"

#include <algorithm>

namespace fed::tunnel {
namespace {

// Outstanding echoes kept: far more than a verdict needs (minutes at the default interval);
// past it the oldest go, which only makes the silence look shorter.
constexpr std::size_t kMaxOutstanding = 256;

}  // namespace

void ProbeHistory::sent(std::uint16_t seq, ProbeClock::time_point at) {
  outstanding_.emplace_back(seq, at);
  if (outstanding_.size() > kMaxOutstanding) outstanding_.pop_front();
}

void ProbeHistory::answered(std::uint16_t seq, ProbeClock::time_point /*at*/) {
  const auto it = std::find_if(outstanding_.begin(), outstanding_.end(),
                               [seq](const auto& e) { return e.first == seq; });
  if (it == outstanding_.end()) return;  // a duplicate, or older than the last answer
  // Echoes sent before it and not answered yet will not count against the peer any more:
  // the path works, and answers may come out of order.
  outstanding_.erase(outstanding_.begin(), it + 1);
  answers_run_ = std::min(answers_run_ + 1, 1 << 20);
  if (state_ == PeerAnswer::Unknown) state_ = PeerAnswer::Answering;
}

PeerAnswer ProbeHistory::verdict(ProbeClock::time_point now) {
  int expired = 0;
  for (const auto& [seq, at] : outstanding_) {
    if (now - at >= timing_.reply_timeout) ++expired;
  }
  if (expired > 0) answers_run_ = 0;
  switch (state_) {
    case PeerAnswer::Unknown:
      break;
    case PeerAnswer::Answering:
      if (expired >= timing_.min_unanswered &&
          now - outstanding_.front().second >= timing_.silent_after) {
        state_ = PeerAnswer::Silent;
      }
      break;
    case PeerAnswer::Silent:
      if (answers_run_ >= timing_.answers_to_recover) state_ = PeerAnswer::Answering;
      break;
  }
  return state_;
}

}  // namespace fed::tunnel
