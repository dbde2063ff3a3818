// The replicated state's pure rules (agent/manager/ha/state_object): where an object lives in
// etcd, the form it is stored in, and the plan that makes a new leader's host match etcd.
#include "agent/manager/ha/state_object.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

namespace fed::ha {

using nlohmann::json;

namespace {

constexpr const char* kClusters = "federatedclusters.fed.kubectl-fed.io";

json cluster(const std::string& name, const std::string& endpoint) {
  return json{{"apiVersion", "fed.kubectl-fed.io/v1alpha1"},
              {"kind", "FederatedCluster"},
              {"metadata", {{"name", name}}},
              {"spec", {{"endpoint", endpoint}}}};
}

// `object` as an API server returns it: with the fields it assigns.
json live(json object, const std::string& rv) {
  object["metadata"]["resourceVersion"] = rv;
  object["metadata"]["uid"] = "uid-" + rv;
  object["metadata"]["creationTimestamp"] = "2026-11-26T19:00:00Z";
  object["metadata"]["generation"] = 2;
  object["metadata"]["managedFields"] = json::array({{{"manager", "fed-agent-manager"}}});
  return object;
}

}  // namespace

TEST_CASE("a state key reads back from its etcd key, with '_' for no namespace") {
  const StateKey cluster_key{kClusters, "", "c2"};
  CHECK(state_etcd_key(kStatePrefix, cluster_key) ==
        "/kubectl-fed/state/federatedclusters.fed.kubectl-fed.io/_/c2");
  const StateKey secret{"secrets", "kubectl-fed-system", "c2-credentials"};
  CHECK(state_etcd_key(kStatePrefix, secret) ==
        "/kubectl-fed/state/secrets/kubectl-fed-system/c2-credentials");
  for (const auto& key : {cluster_key, secret}) {
    auto back = parse_state_etcd_key(kStatePrefix, state_etcd_key(kStatePrefix, key));
    REQUIRE(back);
    CHECK(*back == key);
  }
  // A prefix without its trailing '/' means the same.
  CHECK(state_etcd_key("/p", secret) == "/p/secrets/kubectl-fed-system/c2-credentials");
  auto back = parse_state_etcd_key("/p", "/p/secrets/_/x");
  REQUIRE(back);
  CHECK(*back == StateKey{"secrets", "", "x"});
  CHECK(to_string(secret) == "secrets/kubectl-fed-system/c2-credentials");
}

TEST_CASE("a key that is not a state key is refused, naming it") {
  for (const char* bad :
       {"/kubectl-fed/manager/leader", "/kubectl-fed/state/", "/kubectl-fed/state/secrets",
        "/kubectl-fed/state/secrets/ns", "/kubectl-fed/state/secrets/ns/a/b",
        "/kubectl-fed/state//ns/a", "/kubectl-fed/state/secrets//a",
        "/kubectl-fed/state/secrets/ns/", "/kubectl-fed/statex/secrets/ns/a"}) {
    INFO(bad);
    auto r = parse_state_etcd_key(kStatePrefix, bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message().find(std::string("state key ") + bad + ": ") == 0);
  }
  CHECK(check_state_key({"secrets", "ns", "a"}));
  CHECK(check_state_key({kClusters, "", "c1"}));
  for (const StateKey& bad : {StateKey{"", "ns", "a"}, StateKey{"secrets", "ns", ""},
                              StateKey{"secrets", "n/s", "a"}, StateKey{"secrets", "ns", "a/b"},
                              StateKey{"se/crets", "ns", "a"}, StateKey{"secrets", "_", "a"}}) {
    INFO(to_string(bad));
    auto r = check_state_key(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == ErrorCode::Invalid);
  }
}

TEST_CASE("the prefix's range covers its keys and nothing after") {
  CHECK(prefix_range_end("/kubectl-fed/state/") == "/kubectl-fed/state0");
  CHECK(prefix_range_end(std::string("a\xff", 2)) == "b");
  CHECK(prefix_range_end(std::string("\xff", 1)) == std::string(1, '\0'));
}

TEST_CASE("the stored form drops what an API server assigns and keeps the rest") {
  json object = live(cluster("c2", "https://10.0.0.2:6443"), "4711");
  object["metadata"]["selfLink"] = "/apis/fed.kubectl-fed.io/v1alpha1/federatedclusters/c2";
  object["metadata"]["deletionTimestamp"] = "2026-11-26T19:01:00Z";
  object["metadata"]["deletionGracePeriodSeconds"] = 0;
  object["metadata"]["ownerReferences"] = json::array({{{"uid", "u1"}, {"name", "x"}}});
  object["metadata"]["labels"] = {{"kubectl-fed.io/cluster-id", "c2"}};
  object["metadata"]["annotations"] = {{"a", "b"}};
  object["metadata"]["finalizers"] = json::array({"fed.kubectl-fed.io/cleanup"});
  object["status"] = {{"phase", "Ready"}};

  const json stored = stored_form(object);
  CHECK(stored == json{{"apiVersion", "fed.kubectl-fed.io/v1alpha1"},
                       {"kind", "FederatedCluster"},
                       {"metadata",
                        {{"name", "c2"},
                         {"labels", {{"kubectl-fed.io/cluster-id", "c2"}}},
                         {"annotations", {{"a", "b"}}},
                         {"finalizers", json::array({"fed.kubectl-fed.io/cleanup"})}}},
                       {"spec", {{"endpoint", "https://10.0.0.2:6443"}}},
                       {"status", {{"phase", "Ready"}}}});
  CHECK(stored_form(stored) == stored);  // idempotent

  // A Secret keeps its payload and type; empty maps are dropped (servers omit them).
  const json secret = {{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata",
                        {{"name", "ca"},
                         {"namespace", "kubectl-fed-system"},
                         {"labels", json::object()},
                         {"resourceVersion", "9"}}},
                       {"type", "kubernetes.io/tls"},
                       {"data", {{"tls.crt", "Y3J0"}}},
                       {"stringData", {{"x", "y"}}},
                       {"immutable", true}};
  CHECK(stored_form(secret) ==
        json{{"apiVersion", "v1"},
             {"kind", "Secret"},
             {"metadata", {{"name", "ca"}, {"namespace", "kubectl-fed-system"}}},
             {"type", "kubernetes.io/tls"},
             {"data", {{"tls.crt", "Y3J0"}}},
             {"stringData", {{"x", "y"}}},
             {"immutable", true}});
}

TEST_CASE("the same object on two API servers is the same state") {
  const json a = live(cluster("c2", "https://10.0.0.2:6443"), "100");
  const json b = live(cluster("c2", "https://10.0.0.2:6443"), "7");  // another host's server
  CHECK(same_state(stored_form(a), b));
  CHECK_FALSE(same_state(stored_form(a), live(cluster("c2", "https://10.0.0.9:6443"), "7")));
}

TEST_CASE("a restore creates what only etcd has, updates what differs, removes the rest") {
  const StateKey c1{kClusters, "", "c1"}, c2{kClusters, "", "c2"}, c3{kClusters, "", "c3"},
      c4{kClusters, "", "c4"}, s1{"secrets", "kubectl-fed-system", "c1-credentials"};
  const json secret = {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", {{"name", "c1-credentials"}, {"namespace", "kubectl-fed-system"}}},
      {"data", {{"token", "dA=="}}}};
  // etcd: c1 (unchanged on the host), c2 (changed there), c3 and the secret (missing there).
  const std::vector<std::pair<StateKey, json>> stored{{c3, cluster("c3", "https://c3")},
                                                      {s1, secret},
                                                      {c2, cluster("c2", "https://c2-new")},
                                                      {c1, cluster("c1", "https://c1")}};
  // The host: c1 as stored, c2 older, c4 which etcd does not have.
  const std::vector<std::pair<StateKey, json>> host{
      {c4, live(cluster("c4", "https://c4"), "40")},
      {c2, live(cluster("c2", "https://c2-old"), "20")},
      {c1, live(cluster("c1", "https://c1"), "10")}};

  const RestorePlan plan = plan_restore(stored, host);
  // Sorted by key: kind, then namespace, then name.
  REQUIRE(plan.create.size() == 2);
  CHECK(plan.create[0].second == cluster("c3", "https://c3"));
  CHECK(plan.create[1].second == secret);
  REQUIRE(plan.update.size() == 1);
  json want = cluster("c2", "https://c2-new");
  want["metadata"]["resourceVersion"] = "20";  // the update is refused if c2 moved since
  CHECK(plan.update[0].second == want);
  CHECK(plan.remove == std::vector<StateKey>{c4});

  // Listing order does not matter.
  std::vector<std::pair<StateKey, json>> reversed(stored.rbegin(), stored.rend());
  const RestorePlan again = plan_restore(reversed, {host.rbegin(), host.rend()});
  CHECK(again.create == plan.create);
  CHECK(again.update == plan.update);
  CHECK(again.remove == plan.remove);

  CHECK(plan.update_status.empty());

  // A difference in the status alone goes through the status subresource only.
  json stale = cluster("c1", "https://c1");
  stale["status"] = {{"phase", "Member"}, {"etcd", {{"lag", 3}}}};
  json fresh = stale;
  fresh["status"]["etcd"]["lag"] = 0;
  const RestorePlan status_only = plan_restore({{c1, fresh}}, {{c1, live(stale, "11")}});
  CHECK(status_only.update.empty());
  REQUIRE(status_only.update_status.size() == 1);
  json want_status = fresh;
  want_status["metadata"]["resourceVersion"] = "11";
  CHECK(status_only.update_status[0].second == want_status);

  // A host that matches etcd needs nothing.
  const RestorePlan none = plan_restore({{c1, cluster("c1", "https://c1")}},
                                        {{c1, live(cluster("c1", "https://c1"), "10")}});
  CHECK(none.create.empty());
  CHECK(none.update.empty());
  CHECK(none.update_status.empty());
  CHECK(none.remove.empty());
  // An empty etcd removes every federation object listed; an empty host gets everything.
  CHECK(plan_restore({}, host).remove == std::vector<StateKey>{c1, c2, c4});
  CHECK(plan_restore(stored, {}).create.size() == 4);
}

}  // namespace fed::ha
