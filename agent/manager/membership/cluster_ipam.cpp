#include "agent/manager/membership/cluster_ipam.hpp"

#include "agent/manager/ipam/api_convert.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/ipam_state.hpp"
#include "shared/net/net_types.hpp"

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
                                                       const ClusterInfo& info, bool persist) {
  std::unique_ptr<ClusterIpam> self(new ClusterIpam(std::move(client), info));
  if (persist) {
    FED_TRY(self->resume());
  } else {
    std::lock_guard lock(self->mu_);
    FED_TRY(self->load());
  }
  return self;
}

Status ClusterIpam::resume() {
  std::uint64_t installed = 0;
  {
    std::lock_guard lock(mu_);
    FED_TRY(load());
    installed = ticket();
  }
  return save(installed);
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

Status ClusterIpam::save(std::uint64_t ticket) {
  FED_TRY(commit_.commit());
  std::lock_guard lock(mu_);
  if (ticket <= lost_through_) {
    return fail(ErrorCode::Conflict,
                "IpamState ipam was changed by someone else; the stored state was reloaded and "
                "this change dropped, the next pass makes it again");
  }
  return ok();
}

std::optional<std::string> ClusterIpam::peer_pod_ip(std::string_view cluster_id,
                                                    std::string_view ip) {
  return translate_peer_pod(cluster_id, ip, PodView::Ours);
}

std::optional<std::string> ClusterIpam::peer_own_ip(std::string_view cluster_id,
                                                    std::string_view ip) {
  return translate_peer_pod(cluster_id, ip, PodView::Peers);
}

std::optional<std::string> ClusterIpam::translate_peer_pod(std::string_view cluster_id,
                                                           std::string_view ip, PodView to) {
  auto address = net::Ipv4::parse(ip);
  if (!address) return std::nullopt;
  std::lock_guard lock(mu_);
  auto state = ipam_.cluster(cluster_id);
  if (!state || !state->subnets) return std::nullopt;
  const auto& [from, into] =
      to == PodView::Ours ? std::pair{state->subnets->pod_cidr, state->subnets->remote_pod_cidr}
                          : std::pair{state->subnets->remote_pod_cidr, state->subnets->pod_cidr};
  if (!from.contains(*address)) return std::nullopt;
  return net::map_ip_to_network(*address, into).str();
}

Status ClusterIpam::remove_peer(std::string_view cluster_id) {
  std::uint64_t removed = 0;
  {
    std::lock_guard lock(mu_);
    FED_TRY(ipam_.remove_cluster(cluster_id));
    removed = ticket();
  }
  return save(removed);
}

Status ClusterIpam::write() {
  fabric::ipam::IpamState state;
  std::string version;
  {
    std::lock_guard lock(mu_);
    state = ipam_.snapshot();
    if (state == saved_ && !resource_version_.empty()) return ok();
    version = resource_version_;
  }
  // Serialised and sent without mu_: the endpoint controller keeps mapping meanwhile, and its
  // changes go into the next write.
  json object{{"apiVersion", std::string(fedapi::kApiVersion)},
              {"kind", std::string(fedapi::kIpamState.kind)},
              {"metadata",
               {{"name", std::string(fedapi::kIpamStateName)},
                {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
              {"spec", fabric::ipam::state_to_json(state)}};
  kube::ApiResult<json> written = [&] {
    if (version.empty()) return client_->create(state_ref().collection(), object);
    object["metadata"]["resourceVersion"] = version;
    return client_->update(state_ref(), object);
  }();
  std::lock_guard lock(mu_);
  if (!written) {
    std::string message = "saving IpamState ipam: " + written.error().to_error().message();
    if (written.error().code() == ErrorCode::Conflict) {
      // Only this function writes, one call at a time, so the conflict came from outside.
      lost_through_ = changes_;
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
