#include "federation/cluster_ipam.hpp"

#include "fabric/ipam/api_convert.hpp"
#include "fedapi/group.hpp"
#include "fedapi/ipam_state.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

const kube::ResourceRef& state_ref() {
  static const kube::ResourceRef ref =
      fedapi::ref(fedapi::kIpamState, std::string(fedapi::kIpamStateName));
  return ref;
}

}  // namespace

Result<std::unique_ptr<ClusterIpam>> ClusterIpam::open(std::shared_ptr<kube::DynamicClient> client,
                                                       const ClusterInfo& info) {
  std::unique_ptr<ClusterIpam> self(new ClusterIpam(std::move(client), info));
  FED_TRY(self->load());
  FED_TRY(self->save());
  return self;
}

Status ClusterIpam::load() {
  auto existing = client_->get(state_ref());
  fabric::ipam::IpamState state;
  resource_version_.clear();
  if (existing) {
    FED_ASSIGN_OR_RETURN(state,
                         fabric::ipam::state_from_json(existing->value("spec", json::object())));
    resource_version_ = (*existing)["metadata"].value("resourceVersion", "");
  } else if (!existing.error().is_not_found()) {
    return existing.error().to_error();
  }
  FED_TRY(ipam_.restore(state));
  saved_ = std::move(state);
  fabric::ipam::InstallSpec spec;
  spec.pod_cidr = info_.pod_cidr;
  spec.service_cidr = info_.service_cidr;
  spec.reserved_subnets = ipam_.snapshot().reserved_subnets;
  FED_ASSIGN_OR_RETURN(local_, ipam_.install(spec));
  return ok();
}

Status ClusterIpam::save() {
  auto state = ipam_.snapshot();
  if (state == saved_ && !resource_version_.empty()) return ok();
  json object{{"apiVersion", std::string(fedapi::kApiVersion)},
              {"kind", std::string(fedapi::kIpamState.kind)},
              {"metadata",
               {{"name", std::string(fedapi::kIpamStateName)},
                {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
              {"spec", fabric::ipam::state_to_json(state)}};
  kube::ApiResult<json> written = [&] {
    if (resource_version_.empty()) return client_->create(state_ref().collection(), object);
    object["metadata"]["resourceVersion"] = resource_version_;
    return client_->update(state_ref(), object);
  }();
  if (!written) {
    std::string message = "saving IpamState ipam: " + written.error().to_error().message();
    if (written.error().code() == ErrorCode::Conflict) {
      auto reloaded = load();
      message += reloaded ? "; reloaded the stored state, the next pass starts from it"
                          : "; reloading it failed too: " + reloaded.error().message();
    }
    return fail(written.error().code(), message);
  }
  resource_version_ = (*written)["metadata"].value("resourceVersion", "");
  saved_ = std::move(state);
  return ok();
}

}  // namespace fed::federation
