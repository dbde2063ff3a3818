#include "agent/manager/offload/webhook/pod_admission.hpp"

#include <doctest/doctest.h>

#include "shared/util/base64.hpp"

using fed::ErrorCode;
using fed::fedapi::NamespaceOffloadingSpec;
using fed::fedapi::PodOffloadingStrategy;
using fed::offload::review_pod;
using nlohmann::json;

namespace {

json review(json pod_spec = json::object()) {
  pod_spec["containers"] = json::array({{{"name", "app"}, {"image", "nginx"}}});
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
            {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
            {"operation", "CREATE"},
            {"namespace", "shop"},
            {"object", {{"apiVersion", "v1"}, {"kind", "Pod"}, {"spec", pod_spec}}}}}};
}

json patch_of(const json& answer) {
  auto text = fed::util::base64_decode(answer["response"]["patch"].get<std::string>());
  REQUIRE(text);
  return json::parse(*text);
}

}  // namespace

TEST_CASE("admission: a pod outside offloaded namespaces is allowed unchanged") {
  auto answer = review_pod(review(), std::nullopt);
  REQUIRE(answer);
  CHECK((*answer)["kind"] == "AdmissionReview");
  CHECK((*answer)["response"]["uid"] == "705ab4f5-6393-11e8-b7cc-42010a800002");
  CHECK((*answer)["response"]["allowed"] == true);
  CHECK_FALSE((*answer)["response"].contains("patch"));
}

TEST_CASE("admission: Remote gets the virtual-node affinity and toleration as a JSONPatch") {
  NamespaceOffloadingSpec spec;
  spec.pod_offloading_strategy = PodOffloadingStrategy::Remote;
  auto answer = review_pod(review(), spec);
  REQUIRE(answer);
  CHECK((*answer)["response"]["allowed"] == true);
  CHECK((*answer)["response"]["patchType"] == "JSONPatch");
  const json patch = patch_of(*answer);
  json pod = review()["request"]["object"];
  const json patched = pod.patch(patch);
  CHECK(patched["spec"]["affinity"]["nodeAffinity"]
               ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] ==
        json::parse(R"([{"matchExpressions": [
          {"key": "kubectl-fed.io/type", "operator": "In", "values": ["virtual-node"]}]}])"));
  CHECK(patched["spec"]["tolerations"][0]["key"] == "virtual-node.kubectl-fed.io/not-allowed");
}

TEST_CASE("admission: a pod whose own affinity cannot be read is refused, naming the field") {
  NamespaceOffloadingSpec spec;
  json bad{{"affinity",
            {{"nodeAffinity",
              {{"requiredDuringSchedulingIgnoredDuringExecution",
                {{"nodeSelectorTerms", "not-a-list"}}}}}}}};
  auto answer = review_pod(review(bad), spec);
  REQUIRE(answer);
  CHECK((*answer)["response"]["allowed"] == false);
  CHECK((*answer)["response"]["status"]["code"] == 400);
  const std::string message = (*answer)["response"]["status"]["message"];
  CHECK(message.find("namespace shop is offloaded") != std::string::npos);
  CHECK(message.find("nodeSelectorTerms") != std::string::npos);
}

TEST_CASE("admission: what is not a pod AdmissionReview is Invalid") {
  CHECK(review_pod(json::object(), std::nullopt).error().code() == ErrorCode::Invalid);
  json no_uid = review();
  no_uid["request"].erase("uid");
  CHECK_FALSE(review_pod(no_uid, std::nullopt));
  json service = review();
  service["request"]["kind"]["kind"] = "Service";
  CHECK_FALSE(review_pod(service, std::nullopt));
}
