// When a peer gateway counts as silent over the tunnel, and when it answers again.
#include "agent/node/tunnel/probe_history.hpp"

#include <doctest/doctest.h>

namespace fed::tunnel {
namespace {

using namespace std::chrono_literals;

// Sends one echo per 500 ms from `t`, answering those for which `answer(i)` is true 10 ms
// later, and returns the verdict after each round.
struct Run {
  ProbeHistory h;
  ProbeClock::time_point t{};
  std::uint16_t seq = 0;

  PeerAnswer round(bool answered) {
    const std::uint16_t s = ++seq;
    h.sent(s, t);
    if (answered) h.answered(s, t + 10ms);
    t += 500ms;
    return h.verdict(t);
  }
};

}  // namespace

TEST_CASE("a peer that never answered is Unknown, never Silent") {
  Run r;
  for (int i = 0; i < 20; ++i) CHECK(r.round(false) == PeerAnswer::Unknown);
}

TEST_CASE("answering, then silent after 4 unanswered echoes spanning 2 s") {
  Run r;
  CHECK(r.round(true) == PeerAnswer::Answering);
  CHECK(r.round(true) == PeerAnswer::Answering);
  // Echoes at +0, +0.5, +1.0 s go unanswered: 3 expired, 1.5 s: not yet.
  CHECK(r.round(false) == PeerAnswer::Answering);
  CHECK(r.round(false) == PeerAnswer::Answering);
  CHECK(r.round(false) == PeerAnswer::Answering);
  // The 4th expired, the first sent 2 s ago.
  CHECK(r.round(false) == PeerAnswer::Silent);
  CHECK(r.round(false) == PeerAnswer::Silent);
}

TEST_CASE("one lost echo between answers is nothing") {
  Run r;
  for (int i = 0; i < 50; ++i) CHECK(r.round(i % 3 != 0 || i == 0) == PeerAnswer::Answering);
}

TEST_CASE("a starved prober that sent few echoes does not call the peer silent") {
  ProbeHistory h;
  ProbeClock::time_point t{};
  h.sent(1, t);
  h.answered(1, t + 5ms);
  // Three echoes over 5 s (the thread barely ran), none answered yet: fewer than 4 misses.
  h.sent(2, t + 1s);
  h.sent(3, t + 3s);
  h.sent(4, t + 5s);
  CHECK(h.verdict(t + 6s) == PeerAnswer::Answering);
  // Their answers were queued while it was starved: read before the verdict, they count.
  h.answered(4, t + 6s);
  h.sent(5, t + 7s);
  CHECK(h.verdict(t + 8s) == PeerAnswer::Answering);
}

TEST_CASE("silent until two answers in a row") {
  Run r;
  r.round(true);
  for (int i = 0; i < 6; ++i) r.round(false);
  REQUIRE(r.h.verdict(r.t) == PeerAnswer::Silent);
  CHECK(r.round(true) == PeerAnswer::Silent);
  CHECK(r.round(false) == PeerAnswer::Silent);  // a miss starts the count again
  CHECK(r.round(true) == PeerAnswer::Silent);
  CHECK(r.round(true) == PeerAnswer::Answering);
}

TEST_CASE("late, duplicate and unknown answers") {
  ProbeHistory h;
  ProbeClock::time_point t{};
  h.sent(1, t);
  h.sent(2, t + 500ms);
  h.answered(2, t + 600ms);   // the newer first: echo 1 no longer counts against the peer
  h.answered(1, t + 700ms);   // older than the last answer: ignored
  h.answered(2, t + 700ms);   // duplicate
  h.answered(99, t + 700ms);  // never sent
  for (std::uint16_t s = 3; s < 6; ++s) h.sent(s, t + s * 500ms);
  CHECK(h.verdict(t + 3s) == PeerAnswer::Answering);  // 3 misses only
}

TEST_CASE("sequence numbers wrap") {
  ProbeHistory h;
  ProbeClock::time_point t{};
  h.sent(65535, t);
  h.answered(65535, t + 1ms);
  h.sent(0, t + 500ms);
  h.answered(0, t + 501ms);
  CHECK(h.verdict(t + 1s) == PeerAnswer::Answering);
}

}  // namespace fed::tunnel
