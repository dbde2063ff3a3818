#include "shared/kube/admission_review.hpp"

#include "shared/util/json_text.hpp"

namespace fed::kube {

using nlohmann::json;

Result<AdmissionRequest> parse_admission_request(const json& review, std::string_view kind) {
  // Whatever reaches the webhook's port comes here: every field is checked for its type, so a
  // malformed review is a 400 naming it, not a json exception.
  using util::string_field;
  if (string_field(review, "kind") != "AdmissionReview" || !review.contains("request") ||
      !review["request"].is_object()) {
    return fail(ErrorCode::Invalid, "not an AdmissionReview request");
  }
  const json& request = review["request"];
  AdmissionRequest out;
  out.api_version = string_field(review, "apiVersion");
  if (out.api_version.empty()) out.api_version = "admission.k8s.io/v1";
  out.uid = string_field(request, "uid");
  if (out.uid.empty()) return fail(ErrorCode::Invalid, "AdmissionReview request.uid is missing");
  const auto object = request.find("object");
  if (string_field(request.value("kind", json::object()), "kind") != kind ||
      object == request.end() || !object->is_object()) {
    return fail(ErrorCode::Invalid,
                "AdmissionReview request is not for a " + std::string(kind) + " object");
  }
  const auto dry_run = request.find("dryRun");
  if (dry_run != request.end() && !dry_run->is_boolean() && !dry_run->is_null()) {
    return fail(ErrorCode::Invalid, "AdmissionReview request.dryRun must be true or false");
  }
  out.operation = string_field(request, "operation");
  out.sub_resource = string_field(request, "subResource");
  out.ns = string_field(request, "namespace");
  out.name = string_field(request, "name");
  out.dry_run = dry_run != request.end() && dry_run->is_boolean() && dry_run->get<bool>();
  out.object = *object;
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
