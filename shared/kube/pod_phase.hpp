#pragma once
// Whether a pod is finished: a Succeeded or Failed pod stays listed (an evicted pod, one whose
// container the kubelet lost across a restart: ContainerStatusUnknown) after its controller
// made a replacement, so anyone asking "is the workload's pod there and healthy" skips it.

#include <string>

#include <nlohmann/json.hpp>

namespace fed::kube {

inline bool pod_finished(const nlohmann::json& pod) {
  const std::string phase = pod.value("status", nlohmann::json::object()).value("phase", "");
  return phase == "Succeeded" || phase == "Failed";
}

}  // namespace fed::kube
