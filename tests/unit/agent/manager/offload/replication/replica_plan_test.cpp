// Deployment replication's pure core (agent/manager/offload/replication/replica_plan): combinations
// of the generation labels, the replica Deployment, which replicas to keep, and their status.
#include "agent/manager/offload/replication/replica_plan.hpp"

#include <doctest/doctest.h>

#include <set>

#include "shared/fedapi/json_fields.hpp"

namespace {

using fed::fedapi::Combination;
using fed::fedapi::DeploymentReplicationSpec;
using fed::offload::NodeFacts;
using nlohmann::json;

const json kReplication{
    {"metadata", {{"name", "web"}, {"namespace", "shop"}, {"uid", "u-1"}, {"generation", 2}}}};

DeploymentReplicationSpec spec_of(json spec) {
  auto s = fed::fedapi::decode<DeploymentReplicationSpec>(spec, "spec");
  REQUIRE(s);
  return *s;
}

json nginx_spec() {
  return json{
      {"template",
       {{"metadata", {{"labels", {{"app", "web"}}}}},
        {"spec",
         {{"replicas", 3},
          {"selector", {{"matchLabels", {{"app", "web"}}}}},
          {"template",
           {{"metadata", {{"labels", {{"app", "web"}}}}},
            {"spec", {{"containers", json::array({{{"name", "web"}, {"image", "nginx"}}})}}}}}}}}},
      {"generationLabels", json::array({"region", "provider"})}};
}

NodeFacts node(std::string name, fed::kube::Labels labels) {
  return {std::move(name), labels};
}

}  // namespace

TEST_CASE("combinations: the distinct tuples that exist (Fig. 7.1), absent labels kept apart") {
  const std::vector<NodeFacts> nodes{
      node("vn-a", {{"region", "A"}, {"provider", "A"}}),
      node("vn-b", {{"region", "A"}, {"provider", "B"}}),
      node("vn-c", {{"region", "A"}, {"provider", "B"}}),  // shares vn-b's replica (Fig. 7.2)
      node("vn-d", {{"region", "B"}}),                     // no provider label
  };
  const auto c = fed::offload::combinations(nodes, {"region", "provider"});
  REQUIRE(c.size() == 3);
  std::set<json> seen;
  for (const auto& [hash, combination] : c) {
    CHECK(hash.size() == 8);
    CHECK(hash == fed::offload::combination_hash(combination));
    json j = json::object();
    for (const auto& [k, v] : combination) j[k] = v ? json(*v) : json(nullptr);
    seen.insert(j);
  }
  CHECK(seen.count(json{{"region", "A"}, {"provider", "A"}}) == 1);
  CHECK(seen.count(json{{"region", "A"}, {"provider", "B"}}) == 1);
  CHECK(seen.count(json{{"region", "B"}, {"provider", nullptr}}) == 1);
  // A label whose value is "" is another combination than an absent label.
  const auto empty_value = fed::offload::combinations({node("x", {{"region", ""}})}, {"region"});
  const auto absent = fed::offload::combinations({node("y", {})}, {"region"});
  CHECK(empty_value.begin()->first != absent.begin()->first);
}

TEST_CASE("no generation labels: one replica per member cluster") {
  auto spec = spec_of(nginx_spec());
  spec.generation_labels.clear();
  CHECK(fed::offload::effective_generation_labels(spec) ==
        std::vector<std::string>{"kubectl-fed.io/cluster-id"});
  const auto c = fed::offload::combinations(
      {node("vn-c2", {{"kubectl-fed.io/cluster-id", "c2"}, {"region", "eu"}}),
       node("vn-c3", {{"kubectl-fed.io/cluster-id", "c3"}, {"region", "eu"}})},
      fed::offload::effective_generation_labels(spec));
  CHECK(c.size() == 2);
}

TEST_CASE("the replica: owned, pinned to its combination, selectors kept apart") {
  const auto spec = spec_of(nginx_spec());
  const Combination combination{{"provider", std::nullopt}, {"region", "B"}};
  auto r = fed::offload::replica_deployment(kReplication, spec, combination);
  REQUIRE(r);
  const json& meta = (*r)["metadata"];
  CHECK(meta["generateName"] == "web-");
  CHECK(meta["namespace"] == "shop");
  CHECK(meta["labels"]["app"] == "web");
  CHECK(meta["labels"]["kubectl-fed.io/replica-of"] == "web");
  const std::string hash = fed::offload::combination_hash(combination);
  CHECK(meta["labels"]["kubectl-fed.io/combination"] == hash);
  CHECK(json::parse(meta["annotations"]["kubectl-fed.io/combination"].get<std::string>()) ==
        json{{"provider", nullptr}, {"region", "B"}});
  CHECK(meta["ownerReferences"][0]["kind"] == "DeploymentReplication");
  CHECK(meta["ownerReferences"][0]["uid"] == "u-1");
  CHECK(meta["ownerReferences"][0]["controller"] == true);
  const json& s = (*r)["spec"];
  CHECK(s["replicas"] == 3);
  CHECK(s["selector"]["matchLabels"] == json{{"app", "web"},
                                             {"kubectl-fed.io/replica-of", "web"},
                                             {"kubectl-fed.io/combination", hash}});
  CHECK(s["template"]["metadata"]["labels"] == s["selector"]["matchLabels"]);
  const json terms = s["template"]["spec"]["affinity"]["nodeAffinity"]
                      ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  REQUIRE(terms.size() == 1);
  CHECK(terms[0]["matchExpressions"] ==
        json::array(
            {{{"key", "provider"}, {"operator", "DoesNotExist"}},
             {{"key", "region"}, {"operator", "In"}, {"values", {"B"}}},
             {{"key", "kubectl-fed.io/type"}, {"operator", "In"}, {"values", {"virtual-node"}}}}));
  CHECK(s["template"]["spec"]["tolerations"][0]["key"] ==
        "virtual-node.kubectl-fed.io/not-allowed");
}

TEST_CASE("the template's own required affinity is intersected, not replaced") {
  json j = nginx_spec();
  j["template"]["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]
   ["requiredDuringSchedulingIgnoredDuringExecution"] = {
       {"nodeSelectorTerms",
        json::array(
            {{{"matchExpressions",
               json::array({{{"key", "tier"}, {"operator", "In"}, {"values", {"gold"}}}})}}})}};
  auto r = fed::offload::replica_deployment(kReplication, spec_of(j),
                                            Combination{{"region", "A"}, {"provider", "A"}});
  REQUIRE(r);
  const json terms = (*r)["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]
                         ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  REQUIRE(terms.size() == 1);
  CHECK(terms[0]["matchExpressions"].size() == 4);
  CHECK(terms[0]["matchExpressions"][0]["key"] == "tier");
}

TEST_CASE("the spec hash moves with the template and the combination, not with nothing") {
  const auto spec = spec_of(nginx_spec());
  const Combination a{{"region", "A"}, {"provider", "A"}};
  auto r1 = fed::offload::replica_deployment(kReplication, spec, a);
  auto r2 = fed::offload::replica_deployment(kReplication, spec, a);
  REQUIRE(r1);
  REQUIRE(r2);
  CHECK_FALSE(fed::offload::replica_outdated(*r1, *r2));
  json changed = nginx_spec();
  changed["template"]["spec"]["replicas"] = 5;
  auto r3 = fed::offload::replica_deployment(kReplication, spec_of(changed), a);
  REQUIRE(r3);
  CHECK(fed::offload::replica_outdated(*r1, *r3));
  // The rewrite keeps the server's metadata and the Deployment controller's annotations.
  json existing = *r1;
  existing["metadata"]["name"] = "web-abcde";
  existing["metadata"]["resourceVersion"] = "42";
  existing["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = "1";
  existing["status"] = {{"replicas", 3}};
  const json out = fed::offload::rewritten_replica(existing, *r3);
  CHECK(out["metadata"]["name"] == "web-abcde");
  CHECK(out["metadata"]["resourceVersion"] == "42");
  CHECK(out["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1");
  CHECK(out["spec"]["replicas"] == 5);
  CHECK_FALSE(out.contains("status"));
  CHECK_FALSE(fed::offload::replica_outdated(out, *r3));
}

TEST_CASE(
    "choose_replicas: keep the oldest per combination; duplicates, gone combinations and "
    "stale selectors go") {
  const auto spec = spec_of(nginx_spec());
  const Combination a{{"region", "A"}, {"provider", "A"}};
  const Combination b{{"region", "A"}, {"provider", "B"}};
  auto want_a = fed::offload::replica_deployment(kReplication, spec, a);
  REQUIRE(want_a);
  const std::string ha = fed::offload::combination_hash(a);
  auto existing_of = [&](std::string name, std::string created, std::string hash) {
    json r = *want_a;
    r["metadata"]["name"] = name;
    r["metadata"]["creationTimestamp"] = created;
    r["metadata"]["labels"]["kubectl-fed.io/combination"] = hash;
    return r;
  };
  json stale = existing_of("web-stale", "2026-01-01T00:00:00Z", ha);
  stale["spec"]["selector"]["matchLabels"]["old"] = "x";
  const std::vector<json> existing{
      existing_of("web-young", "2026-01-03T00:00:00Z", ha),
      existing_of("web-old", "2026-01-02T00:00:00Z", ha),
      stale,
      existing_of("web-gone", "2026-01-01T00:00:00Z", fed::offload::combination_hash(b)),
  };
  const auto choice = fed::offload::choose_replicas(existing, {{ha, *want_a}});
  REQUIRE(choice.keep.size() == 1);
  CHECK(choice.keep.at(ha)["metadata"]["name"] == "web-old");
  std::set<std::string> surplus;
  for (const auto& r : choice.surplus) surplus.insert(r["metadata"]["name"]);
  CHECK(surplus == std::set<std::string>{"web-young", "web-stale", "web-gone"});
}

TEST_CASE("status entry and availability of a replica") {
  const Combination a{{"provider", std::nullopt}, {"region", "A"}};
  json replica{{"metadata", {{"name", "web-x"}, {"generation", 2}}},
               {"status",
                {{"observedGeneration", 2},
                 {"conditions", json::array({{{"type", "Progressing"},
                                              {"status", "True"},
                                              {"lastUpdateTime", "2026-01-01T00:00:05Z"}},
                                             {{"type", "Available"},
                                              {"status", "True"},
                                              {"reason", "MinimumReplicasAvailable"},
                                              {"lastUpdateTime", "2026-01-01T00:00:09Z"}}})}}}};
  const auto s = fed::offload::replica_status(replica, a);
  CHECK(s.generation_labels_values == std::map<std::string, std::string>{{"region", "A"}});
  CHECK(s.deployment_last_condition["type"] == "Available");
  CHECK(fed::offload::replica_available(replica));
  replica["metadata"]["generation"] = 3;  // a rewrite the controller has not seen yet
  CHECK_FALSE(fed::offload::replica_available(replica));
  CHECK_FALSE(fed::offload::replica_available(json{{"metadata", {{"name", "new"}}}}));
}

TEST_CASE("spec decoding names the field") {
  json j = nginx_spec();
  j["template"]["spec"].erase("selector");
  auto s = fed::fedapi::decode<DeploymentReplicationSpec>(j, "spec");
  REQUIRE_FALSE(s);
  CHECK(s.error().message().find("template.spec.selector") != std::string::npos);
  j = nginx_spec();
  j["generationLabels"] = json::array({"region", "region"});
  s = fed::fedapi::decode<DeploymentReplicationSpec>(j, "spec");
  REQUIRE_FALSE(s);
  CHECK(s.error().message().find("generationLabels[1]") != std::string::npos);
  // Round trip.
  const auto spec = spec_of(nginx_spec());
  CHECK(json(spec).get<DeploymentReplicationSpec>() == spec);
}
