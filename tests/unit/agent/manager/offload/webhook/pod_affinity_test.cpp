#include <doctest/doctest.h>

#include "agent/manager/offload/webhook/pod_affinity.hpp"
#include "shared/offload/node_selector_match.hpp"

namespace fed::offload {
namespace {

using fedapi::NodeSelector;
using fedapi::PodOffloadingStrategy;
using nlohmann::json;

// The spec's example clusterSelector (§2.4.5): region In [us-west-1].
const NodeSelector kRegion = json::parse(R"({"nodeSelectorTerms":[{"matchExpressions":[
    {"key":"region","operator":"In","values":["us-west-1"]}]}]})")
                                 .get<NodeSelector>();
const json kVirtual = {
    {"key", "kubectl-fed.io/type"}, {"operator", "In"}, {"values", {"virtual-node"}}};
const json kNotVirtual = {
    {"key", "kubectl-fed.io/type"}, {"operator", "NotIn"}, {"values", {"virtual-node"}}};
const json kRegionExpr = {{"key", "region"}, {"operator", "In"}, {"values", {"us-west-1"}}};

json terms_of(const NodeSelector& s) {
  return json(s)["nodeSelectorTerms"];
}

json pod(json spec = json::object()) {
  spec["containers"] = json::array({{{"name", "app"}, {"image", "nginx"}}});
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}, {"spec", spec}};
}

json patch_for(PodOffloadingStrategy s, const json& p, const NodeSelector& sel = kRegion) {
  auto patch = pod_offloading_patch(s, sel, p);
  REQUIRE_MESSAGE(patch.has_value(), (patch ? "" : patch.error().message()));
  return *patch;
}

// The pod with `patch` applied (nlohmann implements RFC 6902).
json applied(const json& p, const json& patch) {
  return p.patch(patch);
}

const json& required_terms(const json& p) {
  return p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
          ["nodeSelectorTerms"];
}

}  // namespace

TEST_CASE("the enforced terms of each strategy (spec 001 §2.4.5)") {
  CHECK(
      terms_of(enforced_node_selector(PodOffloadingStrategy::LocalAndRemote, kRegion)) ==
      json::array({{{"matchExpressions", {kRegionExpr}}}, {{"matchExpressions", {kNotVirtual}}}}));
  CHECK(terms_of(enforced_node_selector(PodOffloadingStrategy::Remote, kRegion)) ==
        json::array({{{"matchExpressions", {kRegionExpr, kVirtual}}}}));
  CHECK(terms_of(enforced_node_selector(PodOffloadingStrategy::Local, kRegion)) ==
        json::array({{{"matchExpressions", {kNotVirtual}}}}));
  // Remote over the default selector: the type expression once, not twice.
  CHECK(terms_of(enforced_node_selector(PodOffloadingStrategy::Remote,
                                        fedapi::default_cluster_selector())) ==
        json::array({{{"matchExpressions", {kVirtual}}}}));
  CHECK_FALSE(tolerates_virtual_nodes(PodOffloadingStrategy::Local));
  CHECK(tolerates_virtual_nodes(PodOffloadingStrategy::Remote));
  CHECK(tolerates_virtual_nodes(PodOffloadingStrategy::LocalAndRemote));
}

TEST_CASE("a pod without affinity gets the terms and the toleration") {
  const json p = pod();
  const json patch = patch_for(PodOffloadingStrategy::Remote, p);
  CHECK(patch[0]["op"] == "add");
  CHECK(patch[0]["path"] == "/spec/affinity");
  const json out = applied(p, patch);
  CHECK(required_terms(out) == json::array({{{"matchExpressions", {kRegionExpr, kVirtual}}}}));
  CHECK(out["spec"]["tolerations"] == json::array({virtual_node_toleration()}));
  CHECK(virtual_node_toleration() == json{{"key", "virtual-node.kubectl-fed.io/not-allowed"},
                                          {"operator", "Equal"},
                                          {"value", "true"},
                                          {"effect", "NoExecute"}});
}

TEST_CASE("Local: only non-virtual nodes, no toleration even for a tolerate-all pod") {
  const json p = pod({{"tolerations", json::array({{{"operator", "Exists"}}})}});
  const json out = applied(p, patch_for(PodOffloadingStrategy::Local, p));
  CHECK(required_terms(out) == json::array({{{"matchExpressions", {kNotVirtual}}}}));
  CHECK(out["spec"]["tolerations"] == json::array({{{"operator", "Exists"}}}));
}

TEST_CASE("user terms are intersected: the cross product, expressions ANDed") {
  const json user = json::parse(R"({"nodeSelectorTerms":[
      {"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]},
      {"matchExpressions":[{"key":"gpus","operator":"Gt","values":["1"]}]}]})");
  const json p = pod({{"affinity",
                       {{"nodeAffinity",
                         {{"requiredDuringSchedulingIgnoredDuringExecution", user},
                          {"preferredDuringSchedulingIgnoredDuringExecution", json::array()}}}}},
                      {"tolerations", json::array({virtual_node_toleration()})}});
  const json patch = patch_for(PodOffloadingStrategy::LocalAndRemote, p);
  REQUIRE(patch.size() == 1);  // the toleration is there already
  CHECK(patch[0]["path"] ==
        "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution");
  const json out = applied(p, patch);
  const json disk = user["nodeSelectorTerms"][0]["matchExpressions"][0];
  const json gpus = user["nodeSelectorTerms"][1]["matchExpressions"][0];
  CHECK(required_terms(out) == json::array({{{"matchExpressions", {disk, kRegionExpr}}},
                                            {{"matchExpressions", {disk, kNotVirtual}}},
                                            {{"matchExpressions", {gpus, kRegionExpr}}},
                                            {{"matchExpressions", {gpus, kNotVirtual}}}}));
  CHECK(out["spec"]["affinity"]["nodeAffinity"].contains(
      "preferredDuringSchedulingIgnoredDuringExecution"));

  // What the result selects: a local ssd node, a us-west-1 member with ssd; not a plain member.
  const auto sel = required_terms(out);
  const NodeSelector merged = json{{"nodeSelectorTerms", sel}}.get<NodeSelector>();
  CHECK(*matches(merged, {"n1", {{"disk", "ssd"}}}));
  CHECK(*matches(
      merged,
      {"kubectl-fed-c2",
       {{"disk", "ssd"}, {"region", "us-west-1"}, {"kubectl-fed.io/type", "virtual-node"}}}));
  CHECK_FALSE(*matches(
      merged, {"kubectl-fed-c3", {{"disk", "ssd"}, {"kubectl-fed.io/type", "virtual-node"}}}));
  CHECK_FALSE(*matches(merged, {"n2", {{"disk", "hdd"}}}));
}

TEST_CASE("partial affinity objects are completed at the right level; reapplying is a no-op") {
  const json with_pod_affinity = pod({{"affinity", {{"podAffinity", json::object()}}}});
  auto patch = patch_for(PodOffloadingStrategy::Remote, with_pod_affinity);
  CHECK(patch[0]["path"] == "/spec/affinity/nodeAffinity");
  json out = applied(with_pod_affinity, patch);
  CHECK(out["spec"]["affinity"].contains("podAffinity"));
  CHECK(patch_for(PodOffloadingStrategy::Remote, out) == json::array());

  const json other_toleration =
      pod({{"tolerations", json::array({{{"key", "gpu"}, {"operator", "Exists"}}})}});
  patch = patch_for(PodOffloadingStrategy::LocalAndRemote, other_toleration);
  CHECK(patch.back()["path"] == "/spec/tolerations/-");
  out = applied(other_toleration, patch);
  CHECK(out["spec"]["tolerations"].size() == 2);
}

TEST_CASE("unreadable or empty user terms are refused with the field named") {
  const json bad =
      pod({{"affinity",
            {{"nodeAffinity",
              {{"requiredDuringSchedulingIgnoredDuringExecution",
                {{"nodeSelectorTerms",
                  {{{"matchExpressions", {{{"key", "a"}, {"operator", "Near"}}}}}}}}}}}}}});
  auto patch = pod_offloading_patch(PodOffloadingStrategy::Remote, kRegion, bad);
  REQUIRE_FALSE(patch);
  CHECK(patch.error().message() ==
        "pod spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
        "nodeSelectorTerms[0].matchExpressions[0].operator: must be one of In, NotIn, Exists, "
        "DoesNotExist, Gt, Lt, not \"Near\"");
  const json empty = pod({{"affinity",
                           {{"nodeAffinity",
                             {{"requiredDuringSchedulingIgnoredDuringExecution",
                               {{"nodeSelectorTerms", json::array({json::object()})}}}}}}}});
  patch = pod_offloading_patch(PodOffloadingStrategy::Remote, kRegion, empty);
  REQUIRE_FALSE(patch);
  CHECK(patch.error().message().find("every term is empty") != std::string::npos);
  CHECK_FALSE(pod_offloading_patch(PodOffloadingStrategy::Remote, kRegion, json::object()));
}

}  // namespace fed::offload
