#include "agent/manager/offload/webhook/pod_admission.hpp"

#include "agent/manager/offload/webhook/pod_affinity.hpp"
#include "shared/kube/admission_review.hpp"
#include "shared/util/base64.hpp"

namespace fed::offload {

using nlohmann::json;

Result<json> review_pod(const json& review,
                        const std::optional<fedapi::NamespaceOffloadingSpec>& offloading) {
  FED_ASSIGN_OR_RETURN(const auto request, kube::parse_admission_request(review, "Pod"));
  json body{{"allowed", true}};
  if (!offloading) return kube::admission_answer(request, std::move(body));
  auto patch = pod_offloading_patch(offloading->pod_offloading_strategy,
                                    offloading->effective_cluster_selector(), request.object);
  if (!patch) {
    body["allowed"] = false;
    body["status"] = {
        {"code", 400},
        {"reason", "BadRequest"},
        {"message", "namespace " + request.ns + " is offloaded (podOffloadingStrategy " +
                        std::string(fedapi::to_string(offloading->pod_offloading_strategy)) +
                        "): " + patch.error().message()}};
    return kube::admission_answer(request, std::move(body));
  }
  if (!patch->empty()) {
    body["patchType"] = "JSONPatch";
    body["patch"] = util::base64_encode(patch->dump());
  }
  return kube::admission_answer(request, std::move(body));
}

}  // namespace fed::offload
