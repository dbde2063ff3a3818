#include <doctest/doctest.h>

#include "agent/manager/membership/pending_recheck.hpp"

namespace fed::federation {
namespace {

using namespace std::chrono_literals;
using Clock = PendingRecheck::Clock;

TEST_CASE("a pending member is looked at every second, then less often, until it changes") {
  PendingRecheck recheck(30s, 30s, 60s);
  const Clock::time_point t0{};
  // The first 30 s of one state: every second (a join is usually through by then).
  CHECK(recheck.next("c2", "waiting for c2's key", t0) == 1s);
  CHECK(recheck.next("c2", "waiting for c2's key", t0 + 29s) == 1s);
  // Then doubling from 2 s, capped at 30 s.
  CHECK(recheck.next("c2", "waiting for c2's key", t0 + 30s) == 2s);
  CHECK(recheck.next("c2", "waiting for c2's key", t0 + 32s) == 4s);
  CHECK(recheck.next("c2", "waiting for c2's key", t0 + 36s) == 8s);
  CHECK(recheck.next("c2", "waiting for c2's key", t0 + 44s) == 16s);
  CHECK(recheck.next("c2", "waiting for c2's key", t0 + 60s) == 30s);
  CHECK(recheck.next("c2", "waiting for c2's key", t0 + 90s) == 30s);
  // Progress (another state) is watched closely again.
  CHECK(recheck.next("c2", "no handshake yet", t0 + 120s) == 1s);
  CHECK(recheck.next("c2", "no handshake yet", t0 + 121s) == 1s);
  // Members are independent.
  CHECK(recheck.next("c3", "waiting for c3's key", t0 + 121s) == 1s);
}

TEST_CASE("a connected member is rechecked rarely and a later pending spell starts afresh") {
  PendingRecheck recheck(30s, 30s, 60s);
  const Clock::time_point t0{};
  recheck.next("c2", "no handshake yet", t0);
  CHECK(recheck.next("c2", "no handshake yet", t0 + 40s) == 2s);
  CHECK(recheck.next("c2", "", t0 + 41s) == 60s);
  CHECK(recheck.next("c2", "no handshake yet", t0 + 200s) == 1s);
  // forget (unjoin): a rejoin starts afresh too.
  CHECK(recheck.next("c2", "no handshake yet", t0 + 240s) == 2s);
  recheck.forget("c2");
  CHECK(recheck.next("c2", "no handshake yet", t0 + 241s) == 1s);
}

TEST_CASE("after a restart, a member joined long ago is not rechecked every second") {
  PendingRecheck recheck(30s, 30s, 60s);
  const Clock::time_point t0{};
  // Joined an hour ago: this process's first pass starts at the backoff.
  CHECK(recheck.next("c2", "no handshake yet", t0, 1h) == 2s);
  CHECK(recheck.next("c2", "no handshake yet", t0 + 2s, 1h) == 4s);
  // Its age plays no part in later passes: a new state is watched closely.
  CHECK(recheck.next("c2", "waiting for c2's key", t0 + 6s, 1h) == 1s);
  // Joined 10 s ago (a restart during a join): the rest of the fast spell.
  CHECK(recheck.next("c3", "no handshake yet", t0, 10s) == 1s);
  CHECK(recheck.next("c3", "no handshake yet", t0 + 19s, 10s) == 1s);
  CHECK(recheck.next("c3", "no handshake yet", t0 + 20s, 10s) == 2s);
}

}  // namespace
}  // namespace fed::federation
