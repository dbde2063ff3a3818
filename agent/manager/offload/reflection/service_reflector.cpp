#include "agent/manager/offload/reflection/service_reflector.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "agent/manager/offload/namespaces/accepted_replicas.hpp"
#include "agent/manager/offload/reflection/reflected_service.hpp"
#include "agent/manager/offload/reflection/twin_writes.hpp"
#include "shared/fedapi/group.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

const kube::ResourceRef kServices{{"", "v1", "services"}, "", "", ""};
const kube::ResourceRef kSlices{{"discovery.k8s.io", "v1", "endpointslices"}, "", "", ""};
constexpr std::chrono::seconds kServiceSettle{2};

// "web.shop.c2-10-243-0-3": one mapping per Service, member and endpoint (the IPAM counts
// references, so Services sharing an endpoint share its address).
std::string mapping_name(const std::string& service, const std::string& ns, const std::string& id,
                         std::string ip) {
  std::replace(ip.begin(), ip.end(), '.', '-');
  return service + "." + ns + "." + id + "-" + ip;
}

}  // namespace

ServiceReflector::ServiceReflector(std::shared_ptr<kube::DynamicClient> host,
                                   std::string host_cluster_id, ServiceInformers informers,
                                   MemberClient member_client, MemberOwnIp member_own_ip)
    : host_(std::move(host)),
      host_id_(std::move(host_cluster_id)),
      informers_(informers),
      member_client_(std::move(member_client)),
      member_own_ip_(std::move(member_own_ip)) {}

std::vector<kube::Request> ServiceReflector::service_of_slice(const json& slice) {
  const json labels = slice["metadata"].value("labels", json::object());
  const std::string service = labels.value("kubernetes.io/service-name", "");
  if (service.empty()) return {};
  return {{slice["metadata"].value("namespace", ""), service}};
}

std::vector<kube::Request> ServiceReflector::service_of_mapping(const json& mapping) {
  const json labels = mapping["metadata"].value("labels", json::object());
  const std::string ns = labels.value(std::string(kOriginNamespaceLabel), "");
  const std::string service = labels.value(std::string(kOriginServiceLabel), "");
  if (ns.empty() || service.empty()) return {};
  return {{ns, service}};
}

std::vector<kube::Request> ServiceReflector::services_of_map(const json& namespace_map) const {
  std::vector<kube::Request> out;
  const json desired =
      namespace_map.value("spec", json::object()).value("desiredMapping", json::object());
  for (const auto& [ns, _] : desired.items()) {
    for (const auto& s : informers_.services.store().list(ns)) {
      out.push_back({ns, (*s)["metadata"].value("name", "")});
    }
  }
  return out;
}

Result<std::vector<std::string>> ServiceReflector::member_addresses(
    const std::string& id, const std::string& ns, const std::string& service,
    const std::vector<std::string>& addresses, std::set<std::string>& used, bool& pending) {
  std::vector<std::string> out;
  for (const auto& ip : addresses) {
    if (auto own = member_own_ip_(id, ip)) {  // a twin on that member: reached directly
      out.push_back(*own);
      continue;
    }
    const std::string name = mapping_name(service, ns, id, ip);
    used.insert(name);
    auto mapping = informers_.endpoint_mappings.store().get("", name);
    if (!mapping) {
      json em{{"apiVersion", std::string(fedapi::kApiVersion)},
              {"kind", "EndpointMapping"},
              {"metadata",
               {{"name", name},
                {"labels",
                 {{"app.kubernetes.io/part-of", "kubectl-fed"},
                  {std::string(kOriginNamespaceLabel), ns},
                  {std::string(kOriginServiceLabel), service}}}}},
              {"spec", {{"clusterID", id}, {"endpoint", ip}}}};
      auto created = host_->create(fedapi::ref(fedapi::kEndpointMapping, ""), em);
      if (!created && !created.error().is_already_exists()) {
        return created.error().to_error().with_context("EndpointMapping " + name);
      }
      pending = true;
      continue;
    }
    const std::string address = (*mapping).value("status", json::object()).value("address", "");
    if (address.empty()) {
      pending = true;
      continue;
    }
    out.push_back(address);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status ServiceReflector::remove_twins(const ReplicaClient& r, const std::string& service) {
  for (const auto& ref :
       {kServices.in_namespace(r.ns).named(service),
        kSlices.in_namespace(r.ns).named(service + std::string(kTwinSliceSuffix))}) {
    FED_ASSIGN_OR_RETURN(const bool removed, remove_twin(*r.client, ref, host_id_));
    if (removed) spdlog::info("service reflection: removed {}/{} on {}", r.ns, ref.name, r.member);
  }
  return ok();
}

Status ServiceReflector::collect_mappings(const std::string& ns, const std::string& service,
                                          const std::set<std::string>& used) {
  for (const auto& m : informers_.endpoint_mappings.store().list()) {
    const auto requests = service_of_mapping(*m);
    if (requests.empty() || requests[0].ns != ns || requests[0].name != service) continue;
    const std::string name = (*m)["metadata"].value("name", "");
    if (used.count(name) != 0) continue;
    auto removed = host_->remove(fedapi::ref(fedapi::kEndpointMapping, name));
    if (!removed && !removed.error().is_not_found()) return removed.error().to_error();
  }
  return ok();
}

Result<kube::Requeue> ServiceReflector::reconcile(const kube::Request& request) {
  const std::string& ns = request.ns;
  const std::string& name = request.name;
  auto service = informers_.services.store().get(ns, name);
  const bool wanted = service && reflected_service(*service) &&
                      !(*service)["metadata"].contains("deletionTimestamp");
  bool pending = false;
  std::set<std::string> used;
  for (const auto& r : replicas_of(informers_.namespace_maps, member_client_, ns, pending)) {
    if (!wanted) {
      FED_TRY(remove_twins(r, name));
      continue;
    }
    const TwinTarget target{host_id_, ns, r.ns};
    FED_TRY(ensure_twin(*r.client, twin_service(*service, target), host_id_,
                        "Service " + r.ns + "/" + name + " on " + r.member));
    std::vector<json> slices;
    for (const auto& s : informers_.endpoint_slices.store().list(ns)) {
      const auto owner = service_of_slice(*s);
      if (!owner.empty() && owner[0].name == name) {
        slices.push_back(*s);
      }
    }
    const auto endpoints = host_endpoints(slices);
    FED_ASSIGN_OR_RETURN(auto addresses,
                         member_addresses(r.member, ns, name, endpoints.addresses, used, pending));
    FED_TRY(ensure_twin(
        *r.client, twin_endpoint_slice(name, addresses, endpoints.ports, target), host_id_,
        "EndpointSlice " + r.ns + "/" + name + std::string(kTwinSliceSuffix) + " on " + r.member));
  }
  FED_TRY(collect_mappings(ns, name, used));
  if (!wanted && !service) return kube::Requeue{};
  return kube::Requeue{pending ? kServiceSettle : kServiceRecheck};
}

}  // namespace fed::offload
