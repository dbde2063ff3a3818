#pragma once
// The name a local namespace gets in the member clusters (spec 001 §2.2, §2.4.4). DefaultName
// is "<namespace>-<host cluster id>" and must stay a DNS label (≤ 63 characters), else it is
// refused (the spec limits the namespace name instead of truncating, so names never collide);
// EnforceSameName is the local name; SelectedName is spec.remoteNamespaceName. Pure.

#include <string>
#include <string_view>

#include "shared/fedapi/offloading.hpp"
#include "shared/result/result.hpp"

namespace fed::offload {

// The maximum length of a namespace name (an RFC 1123 DNS label).
inline constexpr std::size_t kMaxNamespaceLength = 63;

// Whether `name` is an RFC 1123 DNS label: 1-63 of [a-z0-9-], starting and ending alphanumeric.
bool is_dns_label(std::string_view name);

// The remote namespace of `local_namespace` under `spec`, the same on every member. Invalid
// naming the field and the fix when the result is not a DNS label (DefaultName too long,
// SelectedName missing or malformed).
Result<std::string> remote_namespace_name(const fedapi::NamespaceOffloadingSpec& spec,
                                          std::string_view local_namespace,
                                          std::string_view local_cluster_id);

}  // namespace fed::offload
