#include "agent/manager/ha/replicated_kinds.hpp"

#include "shared/fedapi/group.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/fedapi/state_commit.hpp"

namespace fed::ha {
namespace {

ReplicatedKind federation_kind(const fedapi::Kind& kind, bool replicate_status = true) {
  return ReplicatedKind{fedapi::ref(kind, ""), "", std::string(fedapi::kApiVersion),
                        std::string(kind.kind), replicate_status};
}

}  // namespace

std::string ReplicatedKind::key_kind() const {
  return fedapi::state_kind(collection.gvr);
}

const std::vector<ReplicatedKind>& replicated_kinds() {
  static const std::vector<ReplicatedKind> kinds = {
      ReplicatedKind{
          kube::ResourceRef{{"", "v1", "secrets"}, std::string(fedapi::kNamespace), "", ""},
          std::string(fedapi::kMemberCredentialLabel), "v1", "Secret"},
      federation_kind(fedapi::kFederationHost),
      federation_kind(fedapi::kFederatedCluster, /*replicate_status=*/false),
      federation_kind(fedapi::kDirectPeering),
      federation_kind(fedapi::kFeatureConfig),
  };
  return kinds;
}

StateKey state_key_of(const ReplicatedKind& kind, const nlohmann::json& object) {
  const auto& meta = object.value("metadata", nlohmann::json::object());
  return StateKey{kind.key_kind(), meta.value("namespace", ""), meta.value("name", "")};
}

nlohmann::json typed(const ReplicatedKind& kind, nlohmann::json object) {
  object["apiVersion"] = kind.api_version;
  object["kind"] = kind.kind;
  if (!kind.replicate_status) object.erase("status");
  return object;
}

const ReplicatedKind* replicated_kind_named(std::string_view key_kind) {
  for (const auto& kind : replicated_kinds()) {
    if (kind.key_kind() == key_kind) return &kind;
  }
  return nullptr;
}

}  // namespace fed::ha
