#pragma once
// admission.k8s.io/v1 AdmissionReview, as the API server sends it to a webhook and expects it
// back: the request's fields every kubectl-fed webhook reads, checked once, and the answer's
// envelope. Pure; the webhooks' decisions and their HTTPS servers are separate.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::kube {

struct AdmissionRequest {
  std::string api_version;  // of the review, echoed in the answer
  std::string uid;
  std::string operation;     // CREATE, UPDATE, DELETE, CONNECT
  std::string sub_resource;  // "" for the object itself
  std::string ns;            // "" for cluster-scoped objects
  std::string name;          // "" when the name is generated
  bool dry_run = false;
  nlohmann::json object;  // request.object
};

// The request of `review`. Invalid (the webhook answers HTTP 400) unless it is an AdmissionReview
// with a request.uid, for an object of `kind`, carrying that object.
Result<AdmissionRequest> parse_admission_request(const nlohmann::json& review,
                                                 std::string_view kind);

// The AdmissionReview that answers `request`: response = `response` with the request's uid.
nlohmann::json admission_answer(const AdmissionRequest& request, nlohmann::json response);

// {"allowed": true} as the whole answer.
nlohmann::json admission_allowed(const AdmissionRequest& request);

}  // namespace fed::kube
