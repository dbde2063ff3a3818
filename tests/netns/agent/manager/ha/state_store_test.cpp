// The replicated state store against a real 3-member etcd cluster (scripts/etcd-harness): the
// elected leader's writes land and read back exactly as stored; once another manager took over,
// the deposed leader's writes and deletes are refused — by itself when it knows it lost, by etcd
// when its fence is stale (a write in flight across the takeover) — and leave the stored state
// as the new leader wrote it.
#include "agent/manager/ha/state_store.hpp"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent/manager/ha/leader_elector.hpp"
#include "shared/etcd/client.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"
#include "tests/netns/agent/manager/ha/election_client.hpp"

namespace fed::ha {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kClusters = "federatedclusters.fed.kubectl-fed.io";

// One manager process: its own etcd client, elector, thread, and state store behind its fence.
struct Manager {
  std::unique_ptr<etcd::EtcdClient> client;
  std::unique_ptr<LeaderElector> elector;
  std::unique_ptr<StateStore> store;
  std::jthread thread;

  Manager(const etcdtest::Cluster& cluster, const std::string& identity)
      : client(client_for(cluster)) {
    elector = std::make_unique<LeaderElector>(*client, kKey, identity, ElectionTimings{},
                                              LeaderCallbacks{});
    store = std::make_unique<StateStore>(*client, [this] { return elector->fence(); });
    thread = std::jthread([this](std::stop_token stop) { elector->run(stop); });
  }
};

// A FederatedCluster as its host's API server returns it, server-assigned fields included.
json cluster_object(const std::string& name, const std::string& endpoint, const std::string& rv) {
  return json{{"apiVersion", "fed.kubectl-fed.io/v1alpha1"},
              {"kind", "FederatedCluster"},
              {"metadata",
               {{"name", name},
                {"resourceVersion", rv},
                {"uid", "uid-" + name},
                {"creationTimestamp", "2026-11-26T19:00:00Z"}}},
              {"spec", {{"endpoint", endpoint}}}};
}

json secret_object(const std::string& name, const std::string& token) {
  return json{
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", {{"name", name}, {"namespace", "kubectl-fed-system"}, {"resourceVersion", "3"}}},
      {"type", "Opaque"},
      {"data", {{"token", token}}}};
}

bool refused(const Status& s) {
  return !s && s.error().code() == ErrorCode::Permission &&
         s.error().message().starts_with("not the leader (fenced): ");
}

}  // namespace

TEST_CASE("the leader's state round-trips through etcd; a deposed leader's writes are refused") {
  spdlog::set_level(spdlog::level::warn);
  etcdtest::Cluster cluster(0);
  REQUIRE_MESSAGE(cluster.up(), "harness up failed; logs in " << cluster.dir());
  etcdtest::InClientNetns netns;
  REQUIRE(netns.ok());
  auto admin = client_for(cluster);
  REQUIRE(admin->wait_for_leader(5s));
  // Reads need no fence: a store without one still loads.
  StateStore reader(*admin, [] { return std::optional<etcd::Compare>(); });

  Manager a(cluster, "h1/a"), b(cluster, "h2/b");
  REQUIRE(eventually([&] { return a.elector->leading() || b.elector->leading(); }, 10s));
  Manager& first = a.elector->leading() ? a : b;
  Manager& second = &first == &a ? b : a;

  const StateKey c1{kClusters, "", "c1"}, c2{kClusters, "", "c2"},
      s1{"secrets", "kubectl-fed-system", "c1-credentials"};

  // A standby writes nothing: refused before etcd is asked.
  const Status standby = second.store->put(c1, cluster_object("c1", "https://standby", "1"));
  CHECK(refused(standby));
  CHECK(standby.error().message() ==
        "not the leader (fenced): write of federatedclusters.fed.kubectl-fed.io/_/c1 refused");
  // An object that is not the one its key names is refused too.
  const Status mismatch = first.store->put(c2, cluster_object("c1", "https://c1", "1"));
  REQUIRE_FALSE(mismatch);
  CHECK(mismatch.error().code() == ErrorCode::Invalid);

  // The leader's writes land, in their stored form.
  const auto before = reader.revision();
  REQUIRE(before);
  REQUIRE(first.store->put(c1, cluster_object("c1", "https://c1", "10")));
  REQUIRE(first.store->put(c2, cluster_object("c2", "https://c2", "11")));
  REQUIRE(first.store->put(s1, secret_object("c1-credentials", "dG9rZW4=")));
  const auto after = reader.revision();
  REQUIRE(after);
  CHECK(*after >= *before + 3);
  etcd::RangeRequest raw;
  raw.key = state_etcd_key(kStatePrefix, c1);
  auto got = admin->range(raw);
  REQUIRE(got);
  REQUIRE(got->kvs.size() == 1);
  CHECK(got->kvs[0].value == stored_form(cluster_object("c1", "https://c1", "10")).dump());

  auto loaded = reader.load();
  REQUIRE(loaded);
  REQUIRE(loaded->size() == 3);
  std::vector<std::pair<StateKey, json>> want{
      {c1, stored_form(cluster_object("c1", "https://c1", "10"))},
      {c2, stored_form(cluster_object("c2", "https://c2", "11"))},
      {s1, stored_form(secret_object("c1-credentials", "dG9rZW4="))}};
  CHECK(*loaded == want);  // etcd's key order: federatedclusters... before secrets
  // A restore on a host that has exactly this needs nothing.
  const RestorePlan nothing =
      plan_restore(*loaded, {{c1, cluster_object("c1", "https://c1", "7")},
                             {c2, cluster_object("c2", "https://c2", "8")},
                             {s1, secret_object("c1-credentials", "dG9rZW4=")}});
  CHECK(nothing.create.empty());
  CHECK(nothing.update.empty());
  CHECK(nothing.remove.empty());

  // Crash of the leader; the other manager takes over after the lease.
  const std::optional<etcd::Compare> stale_fence = first.elector->fence();
  REQUIRE(stale_fence);
  first.elector->abandon_for_test();
  REQUIRE(eventually([&] { return second.elector->leading(); }, 10s));
  CHECK_FALSE(first.elector->leading());

  // The deposed leader knows it lost: its store refuses without asking etcd.
  CHECK(refused(first.store->put(c1, cluster_object("c1", "https://late", "12"))));
  CHECK(refused(first.store->remove(c2)));
  // A write that still carries the old fence (in flight across the takeover): etcd refuses it.
  StateStore late(*first.client, [&] { return stale_fence; });
  const Status late_put = late.put(c1, cluster_object("c1", "https://late", "12"));
  CHECK(refused(late_put));
  CHECK(refused(late.remove(c2)));
  auto unchanged = reader.load();
  REQUIRE(unchanged);
  CHECK(*unchanged == want);

  // The new leader writes and deletes.
  REQUIRE(second.store->put(c1, cluster_object("c1", "https://c1-moved", "13")));
  REQUIRE(second.store->remove(c2));
  REQUIRE(second.store->remove(c2));  // deleting what is gone is no error
  // Still refused for the old fence afterwards, and the new leader's value stays.
  CHECK(refused(late.put(c1, cluster_object("c1", "https://late", "14"))));
  auto now = reader.load();
  REQUIRE(now);
  const std::vector<std::pair<StateKey, json>> want_now{
      {c1, stored_form(cluster_object("c1", "https://c1-moved", "13"))},
      {s1, stored_form(secret_object("c1-credentials", "dG9rZW4="))}};
  CHECK(*now == want_now);

  // What a third manager restoring its host from etcd would do: c1 updated, c2 deleted.
  const RestorePlan plan = plan_restore(*now, {{c1, cluster_object("c1", "https://c1", "7")},
                                               {c2, cluster_object("c2", "https://c2", "8")},
                                               {s1, secret_object("c1-credentials", "dG9rZW4=")}});
  CHECK(plan.create.empty());
  REQUIRE(plan.update.size() == 1);
  CHECK(plan.update[0].second["spec"]["endpoint"] == "https://c1-moved");
  CHECK(plan.remove == std::vector<StateKey>{c2});

  // A value that is not an object is reported with its key, not skipped.
  etcd::PutRequest junk;
  junk.key = state_etcd_key(kStatePrefix, StateKey{"secrets", "kubectl-fed-system", "junk"});
  junk.value = "not json";
  REQUIRE(admin->put(junk));
  auto bad = reader.load();
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code() == ErrorCode::Invalid);
  CHECK(bad.error().message().find(junk.key) != std::string::npos);
}

}  // namespace fed::ha
