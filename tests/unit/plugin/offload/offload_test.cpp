#include "plugin/offload/offload.hpp"
#include "plugin/offload/offloading_wait.hpp"

#include <doctest/doctest.h>

#include <string>

using fed::ErrorCode;
using fed::plugin::offloading_from_flags;
using fed::plugin::OffloadOptions;
using nlohmann::json;

namespace {

OffloadOptions shop() {
  OffloadOptions o;
  o.kind = "namespace";
  o.namespace_name = "shop";
  return o;
}

std::string error_of(const OffloadOptions& o, const std::string& host = "c1") {
  auto r = offloading_from_flags(o, host);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == ErrorCode::Invalid);
  return r.error().message();
}

}  // namespace

TEST_CASE("offload: the defaults make the spec's default NamespaceOffloading") {
  auto r = offloading_from_flags(shop(), "c1");
  REQUIRE(r);
  CHECK((*r)["kind"] == "NamespaceOffloading");
  CHECK((*r)["metadata"]["name"] == "offloading");
  CHECK((*r)["metadata"]["namespace"] == "shop");
  CHECK((*r)["spec"] == json{{"namespaceMappingStrategy", "DefaultName"},
                             {"podOffloadingStrategy", "LocalAndRemote"}});
}

TEST_CASE("offload: each --selector is one term, its requirements ANDed") {
  auto o = shop();
  o.selectors = {"region in (eu,us),tier!=spot", "gpu,cores>4"};
  o.pod_offloading_strategy = "Remote";
  auto r = offloading_from_flags(o, "c1");
  REQUIRE(r);
  CHECK((*r)["spec"]["podOffloadingStrategy"] == "Remote");
  CHECK((*r)["spec"]["clusterSelector"] == json::parse(R"({"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "region", "operator": "In", "values": ["eu", "us"]},
                          {"key": "tier", "operator": "NotIn", "values": ["spot"]}]},
    {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["4"]},
                          {"key": "gpu", "operator": "Exists"}]}]})"));
}

TEST_CASE("offload: bad flags are refused with the flag named") {
  auto o = shop();
  o.pod_offloading_strategy = "Everywhere";
  auto m = error_of(o);
  CHECK(m ==
        "--pod-offloading-strategy must be one of LocalAndRemote, Local, Remote, not "
        "\"Everywhere\"");
  CHECK(m.find("--namespace-mapping-strategy") == std::string::npos);  // only the flag given

  o = shop();
  o.namespace_mapping_strategy = "Same";
  CHECK(error_of(o).starts_with("--namespace-mapping-strategy must be one of DefaultName, "));

  o = shop();
  o.selectors = {"region in (eu"};
  CHECK(error_of(o).find("--selector[0]") != std::string::npos);

  o = shop();
  o.namespace_mapping_strategy = "SelectedName";
  CHECK(error_of(o).find("remoteNamespaceName") != std::string::npos);

  o = shop();
  o.kind = "pods";
  CHECK(error_of(o).find("only namespaces") != std::string::npos);

  o = shop();
  o.namespace_name = "Shop_1";
  CHECK(error_of(o).find("NS") != std::string::npos);
}

TEST_CASE("offload: DefaultName over 63 characters is refused, not truncated") {
  auto o = shop();
  o.namespace_name = std::string(60, 'a');  // 60 + "-c1" = 63: fits
  CHECK(offloading_from_flags(o, "c1"));
  o.namespace_name = std::string(61, 'a');  // 64
  CHECK(error_of(o).find("63") != std::string::npos);
  o.namespace_name = std::string(62, 'a');
  // Before connecting the host's id is unknown: no length guessed from a placeholder id.
  CHECK(offloading_from_flags(o, ""));
  const std::string message = error_of(o);
  CHECK(message.find("cluster id \"c1\"") != std::string::npos);
  CHECK(message.find("at most 60") != std::string::npos);
  o.namespace_mapping_strategy = "EnforceSameName";  // the same name fits
  CHECK(offloading_from_flags(o, "c1"));
}

TEST_CASE("offload --wait: Ready counts only for the spec the controller has seen") {
  auto off = [](std::int64_t generation, std::int64_t observed, const char* phase) {
    return nlohmann::json{
        {"metadata", {{"generation", generation}}},
        {"status", {{"offloadingPhase", phase}, {"observedGeneration", observed}}}};
  };
  CHECK(fed::plugin::ready_for_current_spec(off(2, 2, "Ready")));
  CHECK_FALSE(fed::plugin::ready_for_current_spec(off(3, 2, "Ready")));  // widened, not seen yet
  CHECK_FALSE(fed::plugin::ready_for_current_spec(off(3, 3, "InProgress")));
  CHECK_FALSE(fed::plugin::ready_for_current_spec(nullptr));
}

TEST_CASE("offload --wait: a member no longer selected must lose its replica first") {
  auto required = [](const char* status) {
    return nlohmann::json::array(
        {{{"type", "OffloadingRequired"}, {"status", status}, {"reason", "ClusterSelected"}},
         {{"type", "Ready"}, {"status", "True"}, {"reason", "RemoteNamespaceCreated"}}});
  };
  nlohmann::json off{
      {"metadata", {{"generation", 4}}},
      {"status",
       {{"offloadingPhase", "Ready"},
        {"observedGeneration", 4},
        {"remoteNamespacesConditions", {{"c2", required("True")}, {"c3", required("False")}}}}}};
  CHECK_FALSE(fed::plugin::ready_for_current_spec(off));  // c3's pods are still moving
  off["status"]["remoteNamespacesConditions"].erase("c3");
  CHECK(fed::plugin::ready_for_current_spec(off));
}

TEST_CASE("offload --wait: a spec the manager refused ends the wait with its reason") {
  auto off = [](std::int64_t generation, std::int64_t refused_for) {
    return nlohmann::json::parse(R"({"metadata":{"generation":)" + std::to_string(generation) +
                                 R"(},"status":{"offloadingPhase":"NoClusterSelected",
      "conditions":[{"type":"Accepted","status":"False","reason":"SpecRefused",
        "message":"the remote namespace name is 64 characters, over 63",
        "observedGeneration":)" + std::to_string(refused_for) +
                                 "}]}}");
  };
  auto refused = fed::plugin::refusal_of(off(2, 2));
  REQUIRE(refused);
  CHECK(*refused == "SpecRefused: the remote namespace name is 64 characters, over 63");
  CHECK_FALSE(fed::plugin::refusal_of(off(3, 2)));  // about the spec before this one
  CHECK_FALSE(fed::plugin::refusal_of(nlohmann::json{{"metadata", {{"generation", 1}}}}));
  CHECK_FALSE(fed::plugin::refusal_of(nullptr));
}
