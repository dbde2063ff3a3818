#include "offload/pod_admission.hpp"

#include "offload/pod_affinity.hpp"
#include "util/base64.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

json response(const json& review, json body) {
  return {{"apiVersion", review.value("apiVersion", "admission.k8s.io/v1")},
          {"kind", "AdmissionReview"},
          {"response", std::move(body)}};
}

}  // namespace

Result<json> review_pod(const json& review,
                        const std::optional<fedapi::NamespaceOffloadingSpec>& offloading) {
  if (!review.is_object() || review.value("kind", "") != "AdmissionReview" ||
      !review.contains("request") || !review["request"].is_object()) {
    return fail(ErrorCode::Invalid, "not an AdmissionReview request");
  }
  const json& request = review["request"];
  const std::string uid = request.value("uid", "");
  if (uid.empty()) return fail(ErrorCode::Invalid, "AdmissionReview request.uid is missing");
  const json kind = request.value("kind", json::object());
  if (kind.value("kind", "") != "Pod" || !request.contains("object")) {
    return fail(ErrorCode::Invalid, "AdmissionReview request is not for a Pod object");
  }
  json body{{"uid", uid}, {"allowed", true}};
  if (!offloading) return response(review, std::move(body));
  auto patch = pod_offloading_patch(offloading->pod_offloading_strategy,
                                    offloading->effective_cluster_selector(), request["object"]);
  if (!patch) {
    body["allowed"] = false;
    body["status"] = {
        {"code", 400},
        {"reason", "BadRequest"},
        {"message", "namespace " + request.value("namespace", std::string()) +
                        " is offloaded (podOffloadingStrategy " +
                        std::string(fedapi::to_string(offloading->pod_offloading_strategy)) +
                        "): " + patch.error().message()}};
    return response(review, std::move(body));
  }
  if (!patch->empty()) {
    body["patchType"] = "JSONPatch";
    body["patch"] = util::base64_encode(patch->dump());
  }
  return response(review, std::move(body));
}

}  // namespace fed::offload
