#include "tenancy/namespace_admission.hpp"

#include "tenancy/tenant_policy.hpp"

namespace fed::tenancy {

using nlohmann::json;

Result<NamespaceCreate> parse_namespace_create(const json& review) {
  if (!review.is_object() || review.value("kind", "") != "AdmissionReview" ||
      !review.contains("request") || !review["request"].is_object()) {
    return fail(ErrorCode::Invalid, "not an AdmissionReview request");
  }
  const json& request = review["request"];
  NamespaceCreate out;
  out.uid = request.value("uid", "");
  if (out.uid.empty()) return fail(ErrorCode::Invalid, "AdmissionReview request.uid is missing");
  out.api_version = review.value("apiVersion", "admission.k8s.io/v1");
  const json kind = request.value("kind", json::object());
  if (kind.value("kind", "") != "Namespace" || request.value("operation", "") != "CREATE" ||
      !request.contains("object") || !request["object"].is_object()) {
    return fail(ErrorCode::Invalid, "AdmissionReview request is not a Namespace CREATE");
  }
  const json& object = request["object"];
  out.name = object.value("metadata", json::object()).value("name", request.value("name", ""));
  out.consumer = consumer_of(object);
  out.dry_run = request.value("dryRun", false);
  return out;
}

json answer_namespace_create(const NamespaceCreate& request, int held, int namespace_quota) {
  json body{{"uid", request.uid}, {"allowed", true}};
  if (request.consumer && namespace_quota > 0 && held >= namespace_quota) {
    body["allowed"] = false;
    body["status"] = {
        {"code", 403},
        {"reason", "Forbidden"},
        {"message", "namespace " + request.name + " refused: consumer " + *request.consumer +
                        " already holds " + std::to_string(held) +
                        " replica namespace(s) on this cluster, its cap (--namespace-quota " +
                        std::to_string(namespace_quota) +
                        "); unoffload a namespace, or have the provider re-run kubectl fed "
                        "join with a larger --namespace-quota"}};
  }
  return {{"apiVersion", request.api_version}, {"kind", "AdmissionReview"}, {"response", body}};
}

}  // namespace fed::tenancy
