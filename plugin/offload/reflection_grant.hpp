#pragma once
// The namespace owner's consent to reflect its ConfigMaps, Secrets and ServiceAccounts
// (docs/OFFLOAD.md): the RoleBinding of shared/offload/reflection_grant.hpp, written by `offload`
// and removed by `unoffload` with the caller's own rights.

#include <string>

#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// Creates the RoleBinding in `ns` unless it exists; the error says what the caller lacks.
Status grant_reflection(kube::DynamicClient& host, const std::string& ns);
// Removes it; nothing when it is gone already.
Status revoke_reflection(kube::DynamicClient& host, const std::string& ns);

}  // namespace fed::plugin
