#include "shared/offload/reflection_grant.hpp"

#include "shared/fedapi/names.hpp"

namespace fed::offload {

nlohmann::json reflection_grant(const std::string& ns) {
  return nlohmann::json{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                        {"kind", "RoleBinding"},
                        {"metadata",
                         {{"name", kReflectionBinding},
                          {"namespace", ns},
                          {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
                        {"roleRef",
                         {{"apiGroup", "rbac.authorization.k8s.io"},
                          {"kind", "ClusterRole"},
                          {"name", kReflectionRole}}},
                        {"subjects", nlohmann::json::array({{{"kind", "ServiceAccount"},
                                                             {"name", "fed-manager"},
                                                             {"namespace", fedapi::kNamespace}}})}};
}

}  // namespace fed::offload
