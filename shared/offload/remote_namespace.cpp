#include "shared/offload/remote_namespace.hpp"

namespace fed::offload {
namespace {

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

constexpr std::string_view kDnsLabelRule =
    "a DNS label: at most 63 characters of a-z, 0-9 and '-', starting and ending with a letter "
    "or digit";

}  // namespace

bool is_dns_label(std::string_view name) {
  if (name.empty() || name.size() > kMaxNamespaceLength) return false;
  if (!alnum(name.front()) || !alnum(name.back())) return false;
  for (char c : name) {
    if (!alnum(c) && c != '-') return false;
  }
  return true;
}

Result<std::string> remote_namespace_name(const fedapi::NamespaceOffloadingSpec& spec,
                                          std::string_view local_namespace,
                                          std::string_view local_cluster_id) {
  using fedapi::NamespaceMappingStrategy;
  if (!is_dns_label(local_namespace)) {
    return fail(ErrorCode::Invalid, "namespace \"" + std::string(local_namespace) + "\" is not " +
                                        std::string(kDnsLabelRule));
  }
  switch (spec.namespace_mapping_strategy) {
    case NamespaceMappingStrategy::EnforceSameName:
      return std::string(local_namespace);
    case NamespaceMappingStrategy::SelectedName:
      if (spec.remote_namespace_name.empty()) {
        return fail(ErrorCode::Invalid,
                    "spec.remoteNamespaceName: is required with namespaceMappingStrategy "
                    "SelectedName; set it to the name the namespace should have in the members");
      }
      if (!is_dns_label(spec.remote_namespace_name)) {
        return fail(ErrorCode::Invalid, "spec.remoteNamespaceName: \"" +
                                            spec.remote_namespace_name + "\" is not " +
                                            std::string(kDnsLabelRule));
      }
      return spec.remote_namespace_name;
    case NamespaceMappingStrategy::DefaultName:
      break;
  }
  std::string name = std::string(local_namespace) + "-" + std::string(local_cluster_id);
  if (name.size() > kMaxNamespaceLength) {
    const std::size_t used = local_cluster_id.size() + 1;
    const std::size_t room = used >= kMaxNamespaceLength ? 0 : kMaxNamespaceLength - used;
    return fail(ErrorCode::Invalid,
                "spec.namespaceMappingStrategy: DefaultName would name the remote namespace \"" +
                    name + "\" (" + std::to_string(name.size()) +
                    " characters), longer than the 63 of a DNS label; with cluster id \"" +
                    std::string(local_cluster_id) + "\" the namespace name may have at most " +
                    std::to_string(room) +
                    " characters: use a shorter namespace, EnforceSameName, or SelectedName "
                    "with spec.remoteNamespaceName");
  }
  if (!is_dns_label(name)) {
    return fail(ErrorCode::Invalid, "spec.namespaceMappingStrategy: DefaultName gives \"" + name +
                                        "\", which is not " + std::string(kDnsLabelRule) +
                                        "; check the host's cluster id");
  }
  return name;
}

}  // namespace fed::offload
