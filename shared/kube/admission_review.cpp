#include "shared/kube/admission_review.hpp"

namespace fed::kube {

using nlohmann::json;

Result<AdmissionRequest> parse_admission_request(const json& review, std::string_view kind) {
  if (!review.is_object() || review.value("kind", "") != "AdmissionReview" ||
      !review.contains("request") || !review["request"].is_object()) {
    return fail(ErrorCode::Invalid, "not an AdmissionReview request");
  }
  const json& request = review["request"];
  AdmissionRequest out;
  out.api_version = review.value("apiVersion", "admission.k8s.io/v1");
  out.uid = request.value("uid", "");
  if (out.uid.empty()) return fail(ErrorCode::Invalid, "AdmissionReview request.uid is missing");
  if (request.value("kind", json::object()).value("kind", "") != kind ||
      !request.contains("object") || !request["object"].is_object()) {
    return fail(ErrorCode::Invalid,
                "AdmissionReview request is not for a " + std::string(kind) + " object");
  }
  out.operation = request.value("operation", "");
  out.sub_resource = request.value("subResource", "");
  out.ns = request.value("namespace", "");
  out.name = request.value("name", "");
  out.dry_run = request.value("dryRun", false);
  out.object = request["object"];
  return out;
}

json admission_answer(const AdmissionRequest& request, json response) {
  response["uid"] = request.uid;
  return {{"apiVersion", request.api_version},
          {"kind", "AdmissionReview"},
          {"response", std::move(response)}};
}

json admission_allowed(const AdmissionRequest& request) {
  return admission_answer(request, {{"allowed", true}});
}

}  // namespace fed::kube
