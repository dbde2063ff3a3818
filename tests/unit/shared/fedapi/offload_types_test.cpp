#include <doctest/doctest.h>

#include "shared/fedapi/federated_cluster.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/namespace_map.hpp"
#include "shared/fedapi/offloading.hpp"
#include "tests/unit/shared/fedapi/sample.hpp"

using fed::test::load_sample;
using fed::test::round_trip;
using nlohmann::json;
namespace api = fed::fedapi;

namespace {

// The Invalid message of decoding `j` as T.
template <typename T>
std::string error_of(const json& j) {
  auto decoded = api::decode<T>(j, "spec");
  REQUIRE_FALSE(decoded.has_value());
  CHECK(decoded.error().code() == fed::ErrorCode::Invalid);
  return decoded.error().message();
}

}  // namespace

TEST_CASE("offloading kinds: names, scope and samples") {
  CHECK(fed::kube::path_of(api::ref_in(api::kNamespaceOffloading, "shop", "offloading")) ==
        "/apis/fed.kubectl-fed.io/v1alpha1/namespaces/shop/namespaceoffloadings/offloading");
  CHECK(fed::kube::path_of(api::ref(api::kNamespaceMap, "c2")) ==
        "/apis/fed.kubectl-fed.io/v1alpha1/namespacemaps/c2");
  CHECK(api::kTypeLabel.starts_with(api::kLabelPrefix));
  CHECK(api::kEnabledLabel.starts_with(api::kLabelPrefix));
  for (const auto& [kind, sample] :
       {std::pair{api::kNamespaceOffloading, "namespaceoffloading.yaml"},
        std::pair{api::kNamespaceMap, "namespacemap.yaml"}}) {
    auto object = load_sample(sample);
    CHECK(object["apiVersion"] == api::kApiVersion);
    CHECK(object["kind"] == kind.kind);
  }
}

TEST_CASE("the NamespaceOffloading sample decodes, with every operator kind, and back") {
  auto object = load_sample("namespaceoffloading.yaml");
  CHECK(object["metadata"]["name"] == api::kNamespaceOffloadingName);
  auto spec = round_trip<api::NamespaceOffloadingSpec>(object, "spec");
  CHECK(spec.namespace_mapping_strategy == api::NamespaceMappingStrategy::EnforceSameName);
  CHECK(spec.pod_offloading_strategy == api::PodOffloadingStrategy::Remote);
  REQUIRE(spec.cluster_selector.has_value());
  const auto& terms = spec.cluster_selector->node_selector_terms;
  REQUIRE(terms.size() == 2);
  CHECK(terms[0].match_expressions[0] ==
        api::NodeSelectorRequirement{"security-policy", api::NodeSelectorOperator::In, {"strict"}});
  CHECK(terms[0].match_expressions[1].op == api::NodeSelectorOperator::Gt);
  CHECK(terms[1].match_fields[0].key == "metadata.name");

  auto status = round_trip<api::NamespaceOffloadingStatus>(object, "status");
  CHECK(status.offloading_phase == api::OffloadingPhase::Ready);
  CHECK(status.remote_namespace_name == "shop");
  REQUIRE(status.remote_namespaces_conditions.size() == 2);
  const auto* ready = api::find_condition(status.remote_namespaces_conditions["c2"], "Ready");
  REQUIRE(ready != nullptr);
  CHECK(ready->status == "True");
  CHECK(api::find_condition(status.remote_namespaces_conditions["c3"], "Ready") == nullptr);
}

TEST_CASE("a refused NamespaceOffloading's status keeps its Accepted condition, and back") {
  const json status = json::parse(R"({"offloadingPhase":"NoClusterSelected","observedGeneration":2,
    "conditions":[{"type":"Accepted","status":"False","reason":"SpecRefused",
      "message":"too long","lastTransitionTime":"2026-11-27T19:00:00Z","observedGeneration":2}]})");
  auto decoded = api::decode<api::NamespaceOffloadingStatus>(status, "status");
  REQUIRE(decoded);
  const auto* accepted = api::find_condition(decoded->conditions, "Accepted");
  REQUIRE(accepted != nullptr);
  CHECK(accepted->reason == "SpecRefused");
  CHECK(json(*decoded)["conditions"] == status["conditions"]);
  // An accepted one writes no conditions at all.
  decoded->conditions.clear();
  CHECK_FALSE(json(*decoded).contains("conditions"));
}

TEST_CASE("an empty NamespaceOffloading spec reads as the spec's defaults") {
  auto spec = api::decode<api::NamespaceOffloadingSpec>(json::object(), "spec");
  REQUIRE(spec);
  CHECK(spec->namespace_mapping_strategy == api::NamespaceMappingStrategy::DefaultName);
  CHECK(spec->pod_offloading_strategy == api::PodOffloadingStrategy::LocalAndRemote);
  CHECK_FALSE(spec->cluster_selector.has_value());
  CHECK(json(spec->effective_cluster_selector()) ==
        json::parse(R"({"nodeSelectorTerms":[{"matchExpressions":[
          {"key":"kubectl-fed.io/type","operator":"In","values":["virtual-node"]}]}]})"));
}

TEST_CASE("bad NamespaceOffloading specs name the field") {
  CHECK(error_of<api::NamespaceOffloadingSpec>({{"podOffloadingStrategy", "Anywhere"}}) ==
        "spec: podOffloadingStrategy: must be one of LocalAndRemote, Local, Remote, not "
        "\"Anywhere\"");
  CHECK(error_of<api::NamespaceOffloadingSpec>({{"namespaceMappingStrategy", "Random"}})
            .find("namespaceMappingStrategy: must be one of DefaultName, EnforceSameName, "
                  "SelectedName") != std::string::npos);
  CHECK(error_of<api::NamespaceOffloadingSpec>({{"namespaceMappingStrategy", "SelectedName"}}) ==
        "spec: remoteNamespaceName: is required with namespaceMappingStrategy SelectedName");
  CHECK(error_of<api::NamespaceOffloadingSpec>({{"remoteNamespaceName", "x"}})
            .find("remoteNamespaceName: is only allowed with") != std::string::npos);
  const auto bad_op = json::parse(R"({"clusterSelector":{"nodeSelectorTerms":[
      {"matchExpressions":[{"key":"a","operator":"In","values":["x"]},
                           {"key":"b","operator":"Equals"}]}]}})");
  CHECK(error_of<api::NamespaceOffloadingSpec>(bad_op) ==
        "spec: clusterSelector.nodeSelectorTerms[0].matchExpressions[1].operator: must be one of "
        "In, NotIn, Exists, DoesNotExist, Gt, Lt, not \"Equals\"");
  const auto bad_values = json::parse(R"({"clusterSelector":{"nodeSelectorTerms":[
      {"matchExpressions":[{"key":"a","operator":"In","values":"x"}]}]}})");
  CHECK(error_of<api::NamespaceOffloadingSpec>(bad_values) ==
        "spec: clusterSelector.nodeSelectorTerms[0].matchExpressions[0].values: must be a list "
        "of strings, not string");
  CHECK(error_of<api::NamespaceOffloadingSpec>(
            {{"clusterSelector",
              {{"nodeSelectorTerms", {{{"matchExpressions", {{{"key", "a"}}}}}}}}}}) ==
        "spec: clusterSelector.nodeSelectorTerms[0].matchExpressions[0].operator: is required");
}

TEST_CASE("the NamespaceMap sample decodes to desired and current mappings, and back") {
  auto object = load_sample("namespacemap.yaml");
  CHECK(object["metadata"]["name"] == object["spec"]["clusterID"]);
  auto spec = round_trip<api::NamespaceMapSpec>(object, "spec");
  CHECK(spec.cluster_id == "c2");
  CHECK(spec.desired_mapping ==
        std::map<std::string, std::string>{{"shop", "shop"}, {"web", "web-c1"}});
  auto status = round_trip<api::NamespaceMapStatus>(object, "status");
  CHECK(status.current_mapping.at("shop") ==
        api::RemoteNamespaceStatus{"shop", api::MappingPhase::Accepted});
  CHECK(status.current_mapping.at("web").phase == api::MappingPhase::CreationLoopBackOff);

  CHECK(error_of<api::NamespaceMapSpec>({{"desiredMapping", {{"a", "b"}}}}) ==
        "spec: clusterID: is required");
  auto bad = api::decode<api::NamespaceMapStatus>(
      {{"currentMapping", {{"shop", {{"remoteNamespace", "shop"}, {"phase", "Gone"}}}}}}, "status");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message() ==
        "status: currentMapping.shop.phase: must be one of Accepted, CreationLoopBackOff, "
        "Terminating, not \"Gone\"");
}

TEST_CASE("the FederatedCluster sample: spec round trip, offered quantities, conditions") {
  auto object = load_sample("federatedcluster.yaml");
  auto spec = round_trip<api::FederatedClusterSpec>(object, "spec");
  CHECK(spec.cluster_id == "c2");
  CHECK(spec.cluster_labels.at("provider") == "testbed");
  CHECK(spec.offered_cpu == "4");
  CHECK(spec.offered_memory == "8Gi");
  auto status = api::decode<api::FederatedClusterStatus>(object["status"], "status");
  REQUIRE(status);
  CHECK(api::find_condition(status->conditions, "Ready")->status == "True");
  CHECK(status->observed_generation == 1);

  json numeric = object["spec"];
  numeric["offered"]["cpu"] = 8;
  auto decoded = api::decode<api::FederatedClusterSpec>(numeric, "spec");
  REQUIRE(decoded);
  CHECK(decoded->offered_cpu == "8");
  numeric["offered"]["cpu"] = true;
  CHECK(error_of<api::FederatedClusterSpec>(numeric) ==
        "spec: offered.cpu: must be a string, not boolean");
  numeric.erase("credentialSecretRef");
  CHECK(error_of<api::FederatedClusterSpec>(numeric) ==
        "spec: credentialSecretRef.name: is required");
}
