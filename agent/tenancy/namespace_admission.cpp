#include "agent/tenancy/namespace_admission.hpp"

#include "agent/tenancy/tenant_policy.hpp"
#include "shared/kube/admission_review.hpp"

namespace fed::tenancy {

using nlohmann::json;

Result<NamespaceCreate> parse_namespace_create(const json& review) {
  FED_ASSIGN_OR_RETURN(auto request, kube::parse_admission_request(review, "Namespace"));
  if (request.operation != "CREATE") {
    return fail(ErrorCode::Invalid, "AdmissionReview request is not a Namespace CREATE");
  }
  NamespaceCreate out;
  out.request = std::move(request);
  const json& object = out.request.object;
  out.name = object.value("metadata", json::object()).value("name", out.request.name);
  out.consumer = consumer_of(object);
  return out;
}

json answer_namespace_create(const NamespaceCreate& request, int held, int namespace_quota) {
  json body{{"allowed", true}};
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
  return kube::admission_answer(request.request, std::move(body));
}

}  // namespace fed::tenancy
