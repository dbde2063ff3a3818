#include "plugin/offload/reflection_grant.hpp"

#include "shared/offload/reflection_grant.hpp"

namespace fed::plugin {
namespace {

const kube::ResourceRef kRoleBindings{
    {"rbac.authorization.k8s.io", "v1", "rolebindings"}, "", "", ""};

}  // namespace

Status grant_reflection(kube::DynamicClient& host, const std::string& ns) {
  auto created = host.create(kRoleBindings.in_namespace(ns), offload::reflection_grant(ns));
  if (created || created.error().is_already_exists()) return ok();
  return created.error().to_error().with_context(
      "granting the manager read access to the ConfigMaps, Secrets and ServiceAccounts of " + ns +
      " (RoleBinding " + std::string(offload::kReflectionBinding) +
      "; you need to be allowed to create RoleBindings there)");
}

Status revoke_reflection(kube::DynamicClient& host, const std::string& ns) {
  auto removed =
      host.remove(kRoleBindings.in_namespace(ns).named(std::string(offload::kReflectionBinding)));
  if (removed || removed.error().is_not_found()) return ok();
  return removed.error().to_error().with_context("removing RoleBinding " +
                                                 std::string(offload::kReflectionBinding));
}

}  // namespace fed::plugin
