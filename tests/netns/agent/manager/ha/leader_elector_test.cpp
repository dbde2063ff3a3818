// The managers' leader election against a real 3-member etcd cluster (scripts/etcd-harness):
// one leader among several electors at every instant, a crashed leader replaced once its lease
// has run out, a deposed leader's fenced write refused, a resignation handed over at once, and
// the election riding out the loss of the etcd leader. Failover times are printed, not asserted
// (the bench measures them); only their order is: a crash's takeover waits out the lease, a
// resignation's does not.
#include "agent/manager/ha/leader_elector.hpp"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "shared/etcd/client.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"
#include "tests/netns/agent/manager/ha/election_client.hpp"

namespace fed::ha {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// One manager process as the election sees it: its own etcd client, elector and thread.
struct Candidate {
  std::unique_ptr<etcd::EtcdClient> client;
  std::unique_ptr<LeaderElector> elector;
  std::atomic<int> started{0}, stopped{0};
  std::jthread thread;

  Candidate(const etcdtest::Cluster& cluster, const std::string& identity)
      : client(client_for(cluster)) {
    elector = std::make_unique<LeaderElector>(
        *client, kKey, identity, ElectionTimings{},
        LeaderCallbacks{[this](const LeaderRecord&) { ++started; }, [this] { ++stopped; }, {}});
    thread = std::jthread([this](std::stop_token stop) { elector->run(stop); });
  }
};

// Samples every elector's leading() every millisecond; remembers the most that led at once.
class OverlapWatch {
 public:
  explicit OverlapWatch(const std::vector<Candidate*>& candidates)
      : thread_([this, candidates](std::stop_token stop) {
          while (!stop.stop_requested()) {
            int n = 0;
            for (const auto* c : candidates) n += c->elector->leading() ? 1 : 0;
            if (n > most_) most_ = n;
            std::this_thread::sleep_for(1ms);
          }
        }) {}
  int most() const { return most_; }

 private:
  std::atomic<int> most_{0};
  std::jthread thread_;
};

Candidate* leader_of(const std::vector<Candidate*>& candidates) {
  for (auto* c : candidates) {
    if (c->elector->leading()) return c;
  }
  return nullptr;
}

etcd::TxnRequest fenced_put(const etcd::Compare& fence, const std::string& value) {
  etcd::TxnRequest txn;
  txn.compare.push_back(fence);
  etcd::TxnOp op;
  op.kind = etcd::TxnOp::Kind::Put;
  op.put.key = "/kubectl-fed/test/state";
  op.put.value = value;
  txn.success.push_back(op);
  return txn;
}

}  // namespace

TEST_CASE("one leader at a time; a crashed leader is replaced after its lease; fences hold") {
  spdlog::set_level(spdlog::level::warn);
  etcdtest::Cluster cluster(0);
  REQUIRE_MESSAGE(cluster.up(), "harness up failed; logs in " << cluster.dir());
  etcdtest::InClientNetns netns;
  REQUIRE(netns.ok());
  auto admin = client_for(cluster);
  REQUIRE(admin->wait_for_leader(5s));

  // Four: after a crash and a resignation, a leader and a standby remain for the last part.
  Candidate a(cluster, "h1/a"), b(cluster, "h2/b"), c(cluster, "h3/c"), d(cluster, "h3/d");
  const std::vector<Candidate*> all{&a, &b, &c, &d};
  OverlapWatch overlap(all);
  REQUIRE(eventually([&] { return leader_of(all) != nullptr; }, 10s));
  Candidate* first = leader_of(all);
  // started_leading runs on a thread of its own, a moment after leading() turns true.
  CHECK(eventually([&] { return first->started == 1; }, 2s));
  // The federation's first leader saw no leader before it: no failover to tell.
  CHECK_FALSE(first->elector->takeover_wait());
  // Every candidate learns who leads.
  CHECK(eventually(
      [&] {
        for (auto* x : all) {
          const auto seen = x->elector->observed();
          if (!seen || seen->holder != first->elector->identity() || seen->epoch != 1) return false;
        }
        return true;
      },
      5s));

  // The leader's writes carry its fence and land.
  const auto old_fence = first->elector->fence();
  REQUIRE(old_fence);
  auto wrote = admin->txn(fenced_put(*old_fence, "from the first leader"));
  REQUIRE(wrote);
  CHECK(wrote->succeeded);

  // Crash: renewals stop without a resignation. Another candidate leads after the lease.
  const auto crashed = Clock::now();
  first->elector->abandon_for_test();
  REQUIRE(eventually(
      [&] {
        auto* now = leader_of(all);
        return now != nullptr && now != first;
      },
      10s));
  const auto took_over = Clock::now();
  Candidate* second = leader_of(all);
  MESSAGE("takeover after a crash: "
          << std::chrono::duration_cast<std::chrono::milliseconds>(took_over - crashed).count()
          << " ms (lease " << ElectionTimings{}.lease_duration.count() << " ms)");
  CHECK_FALSE(first->elector->leading());
  CHECK(first->stopped == 0);  // a crash calls nothing back
  REQUIRE(second->elector->observed());
  CHECK(second->elector->observed()->epoch == 2);
  // It waited out the lease from the last renewal it saw: never less, by construction.
  const auto crash_wait = second->elector->takeover_wait();
  REQUIRE(crash_wait);
  CHECK(*crash_wait >= ElectionTimings{}.lease_duration);
  CHECK(*crash_wait < 10s);
  MESSAGE("failover seen by the new leader after a crash: "
          << std::chrono::duration_cast<std::chrono::milliseconds>(*crash_wait).count() << " ms");

  // The deposed leader's late write is refused; the new leader's lands.
  auto late = admin->txn(fenced_put(*old_fence, "late write of the deposed leader"));
  REQUIRE(late);
  CHECK_FALSE(late->succeeded);
  auto fresh = admin->txn(fenced_put(*second->elector->fence(), "from the second leader"));
  REQUIRE(fresh);
  CHECK(fresh->succeeded);

  // A resignation (clean shutdown) hands over without waiting for the lease.
  const auto resigned = Clock::now();
  second->thread.request_stop();
  second->thread.join();
  REQUIRE(eventually(
      [&] {
        auto* now = leader_of(all);
        return now != nullptr && now != first && now != second;
      },
      5s));
  MESSAGE("takeover after a resignation: "
          << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - resigned).count()
          << " ms");
  CHECK(second->stopped == 0);  // a requested stop is not a loss
  // The released record is taken at once, and its epoch counted on: no lease waited out.
  CHECK(leader_of(all)->elector->observed()->epoch == 3);
  const auto resign_wait = leader_of(all)->elector->takeover_wait();
  REQUIRE(resign_wait);
  CHECK(*resign_wait < ElectionTimings{}.lease_duration);
  MESSAGE("failover seen by the new leader after a resignation: "
          << std::chrono::duration_cast<std::chrono::milliseconds>(*resign_wait).count() << " ms");

  // SIGKILL of the etcd leader: while etcd elects, the leader may miss its deadline and step
  // down (a manager process exits then); either way one of the two left leads afterwards.
  Candidate* third = leader_of(all);
  const std::size_t etcd_leader = *admin->leader();
  REQUIRE(cluster.kill_member(static_cast<int>(etcd_leader) + 1));
  std::this_thread::sleep_for(3s);
  CHECK(eventually([&] { return leader_of(all) != nullptr; }, 10s));
  const std::string outcome =
      third->stopped == 1 ? "stepped down and another took over" : "kept leading without a gap";
  MESSAGE("after the etcd leader's SIGKILL the leader " << outcome);
  CHECK((leader_of(all) == third) == (third->stopped == 0));
  REQUIRE(cluster.restart_member(static_cast<int>(etcd_leader) + 1));

  CHECK(overlap.most() <= 1);
}

}  // namespace fed::ha
