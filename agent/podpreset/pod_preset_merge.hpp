#pragma once
// What the PodPreset feature (seed 003's tactic T1: a CRD plus a mutating webhook standing in
// for the settings.k8s.io/v1alpha1 API Kubernetes removed after 1.19) does to a pod: the presets
// of its namespace whose selector matches its labels add their env, envFrom, volumes and
// volumeMounts, with the removed admission plugin's rules — a preset never overrides what the
// pod says, and any conflict (the same env name with another value, the same volume or mount
// name or mount path with another definition) leaves the whole pod untouched. Pure; the webhook
// server that carries it is separate.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::podpreset {

// A pod annotated "true" here is left alone (as with the built-in PodPreset).
inline constexpr std::string_view kExcludeAnnotation = "podpreset.admission.kubernetes.io/exclude";
// One per applied preset: PREFIX + name = the preset's resourceVersion.
inline constexpr std::string_view kAppliedAnnotationPrefix =
    "podpreset.admission.kubernetes.io/podpreset-";

// The presets among `presets` (PodPreset objects of the pod's namespace) whose spec.selector
// matches the pod's labels, sorted by name. An empty selector matches every pod; a preset
// whose selector does not parse matches none (the CRD's schema keeps those out).
std::vector<nlohmann::json> matching_presets(const nlohmann::json& pod,
                                             const std::vector<nlohmann::json>& presets);

struct Injection {
  nlohmann::json patch = nlohmann::json::array();  // RFC 6902 operations; empty: no change
  std::vector<std::string> applied;                // names of the presets injected
  std::string conflict;  // not empty: nothing was injected, and this says why
};

// The change `matching` (from matching_presets) makes to `pod`: every container and init
// container gets the presets' env, envFrom and volumeMounts, the pod their volumes and one
// annotation per preset.
Injection inject(const nlohmann::json& pod, const std::vector<nlohmann::json>& matching);

// The webhook's answer to an admission.k8s.io/v1 AdmissionReview of a pod CREATE, given the
// PodPresets of the pod's namespace: allowed always (a preset never blocks a pod), with the
// JSON patch of inject() or, on a conflict, a warning naming it. Excluded and mirror pods are
// admitted unchanged. Invalid when `review` is not an AdmissionReview request for a Pod.
Result<nlohmann::json> review_pod(const nlohmann::json& review,
                                  const std::vector<nlohmann::json>& namespace_presets);

}  // namespace fed::podpreset
