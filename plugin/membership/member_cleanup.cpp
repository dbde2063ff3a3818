#include "plugin/membership/member_cleanup.hpp"

#include <algorithm>
#include <thread>

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/manifests/render.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;
using clock = std::chrono::steady_clock;

kube::ResourceRef collection(std::string group, std::string version, std::string resource) {
  return kube::ResourceRef{{std::move(group), std::move(version), std::move(resource)}, "", "", ""};
}

std::string name_of(const kube::ResourceRef& c, const json& item) {
  const std::string ns = item["metadata"].value("namespace", "");
  return c.gvr.resource + "/" + (ns.empty() ? "" : ns + "/") + item["metadata"].value("name", "");
}

// Lists one collection by the part-of label; an unserved kind is empty.
Result<json> list_labelled(kube::DynamicClient& client, const kube::ResourceRef& c) {
  kube::ListOptions options;
  options.label_selector = std::string(kPartOfSelector);
  auto list = client.list(c, options);
  if (list) return std::move(*list).value("items", json::array());
  if (list.error().is_not_found()) return json::array();
  return fail(list.error().code(),
              "listing " + c.gvr.to_string() + ": " + list.error().to_error().message());
}

// Whether `error` is a refusal by one of kubectl-fed's own admission policies. They are deleted
// before the objects they guard, but an API server applies that from its informer's cache, a
// moment later (seconds on a loaded machine): until then it still refuses, e.g. a former
// leader host's FederatedClusters (leader-writes-policy.yaml).
bool refused_by_our_policy(const kube::ApiError& error) {
  return error.http_status() == 403 &&
         error.message().find("ValidatingAdmissionPolicy 'kubectl-fed-") != std::string::npos;
}

Status delete_items(kube::DynamicClient& client, const kube::ResourceRef& c, const json& items,
                    std::vector<std::string>& deleted, clock::time_point deadline) {
  for (const auto& item : items) {
    kube::ResourceRef ref = c.named(item["metadata"].value("name", ""));
    ref.ns = item["metadata"].value("namespace", "");
    kube::DeleteOptions options;
    options.propagation = kube::Propagation::Background;
    auto r = client.remove(ref, options);
    const auto settled = std::min(deadline, clock::now() + std::chrono::seconds(30));
    while (!r && refused_by_our_policy(r.error()) && clock::now() < settled) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      r = client.remove(ref, options);
    }
    if (!r && !r.error().is_not_found()) {
      return fail(r.error().code(),
                  "deleting " + name_of(c, item) + ": " + r.error().to_error().message());
    }
    if (!item["metadata"].contains("deletionTimestamp")) deleted.push_back(name_of(c, item));
  }
  return ok();
}

// Waits until no pod labelled part-of kubectl-fed is left (their preStop has run).
Status wait_for_pods(kube::DynamicClient& client, clock::time_point deadline, Output& out) {
  const auto pods = collection("", "v1", "pods");
  bool told = false;
  while (true) {
    FED_ASSIGN_OR_RETURN(auto items, list_labelled(client, pods));
    if (items.empty()) return ok();
    if (!told)
      out.progress("waiting for " + std::to_string(items.size()) +
                   " agent pod(s) to uninstall and stop...");
    told = true;
    if (clock::now() >= deadline) {
      return fail(ErrorCode::Unavailable,
                  std::to_string(items.size()) + " kubectl-fed pod(s) still running (e.g. " +
                      name_of(pods, items[0]) + "); re-run unjoin, or raise --timeout");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

// Once its agents and managers are gone, nothing of kubectl-fed on this cluster finishes its
// finalizers (kubectl-fed.io/...): the objects of its custom resources left terminating — a
// former leader's FederatedClusters, FederationHosts, DirectPeerings — are let go, or their
// CRDs would never finish terminating.
Status release_finalizers(kube::DynamicClient& client) {
  FED_ASSIGN_OR_RETURN(auto crds, list_labelled(client, collection("apiextensions.k8s.io", "v1",
                                                                   "customresourcedefinitions")));
  for (const auto& crd : crds) {
    const json spec = crd.value("spec", json::object());
    const json versions = spec.value("versions", json::array());
    if (versions.empty()) continue;
    const auto c = collection(spec.value("group", ""), versions[0].value("name", ""),
                              spec.value("names", json::object()).value("plural", ""));
    auto list = client.list(c, {});
    if (!list) continue;  // not served (any more)
    for (const auto& item : list->value("items", json::array())) {
      const json meta = item["metadata"];
      if (!meta.contains("deletionTimestamp")) continue;
      json kept = json::array();
      for (const auto& f : meta.value("finalizers", json::array())) {
        if (!f.get<std::string>().starts_with("kubectl-fed.io/")) kept.push_back(f);
      }
      if (kept.size() == meta.value("finalizers", json::array()).size()) continue;
      kube::ResourceRef ref = c.named(meta.value("name", ""));
      ref.ns = meta.value("namespace", "");
      const json patch{{"metadata", {{"finalizers", kept}}}};
      auto r = client.patch(ref, kube::PatchType::Merge, patch.dump());
      if (!r && !r.error().is_not_found()) return r.error().to_error();
    }
  }
  return ok();
}

}  // namespace

const std::vector<kube::ResourceRef>& labelled_collections() {
  static const std::vector<kube::ResourceRef> kCollections = {
      collection("apps", "v1", "daemonsets"),
      collection("apps", "v1", "deployments"),
      // The admission policies before the objects they guard: on a former host, the one that
      // refuses federation writes on a follower would refuse these deletions.
      collection("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings"),
      collection("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies"),
      collection(std::string(fedapi::kGroup), std::string(fedapi::kVersion), "peerings"),
      collection(std::string(fedapi::kGroup), std::string(fedapi::kVersion), "natmappings"),
      collection(std::string(fedapi::kGroup), std::string(fedapi::kVersion), "ipamstates"),
      collection(std::string(fedapi::kGroup), std::string(fedapi::kVersion), "ipamblocks"),
      collection(std::string(fedapi::kGroup), std::string(fedapi::kVersion), "federatedclusters"),
      collection("", "v1", "configmaps"),
      collection("", "v1", "secrets"),
      collection("", "v1", "serviceaccounts"),
      collection("", "v1", "services"),
      collection("rbac.authorization.k8s.io", "v1", "rolebindings"),
      collection("rbac.authorization.k8s.io", "v1", "roles"),
      collection("rbac.authorization.k8s.io", "v1", "clusterrolebindings"),
      collection("rbac.authorization.k8s.io", "v1", "clusterroles"),
      collection("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"),
      // The federation's namespace and the replicas of offloaded namespaces.
      collection("", "v1", "namespaces"),
      collection("apiextensions.k8s.io", "v1", "customresourcedefinitions"),
  };
  return kCollections;
}

Result<std::vector<std::string>> labelled_leftovers(kube::DynamicClient& client) {
  std::vector<std::string> out;
  for (const auto& c : labelled_collections()) {
    FED_ASSIGN_OR_RETURN(auto items, list_labelled(client, c));
    for (const auto& item : items) out.push_back(name_of(c, item));
  }
  return out;
}

Result<std::vector<std::string>> remove_labelled(kube::DynamicClient& client,
                                                 std::chrono::milliseconds timeout, Output& out) {
  const auto deadline = clock::now() + timeout;
  std::vector<std::string> deleted;
  const auto& collections = labelled_collections();
  // The agent first: its preStop removes the datapath while RBAC and the namespace still exist.
  for (std::size_t i = 0; i < 2; ++i) {
    FED_ASSIGN_OR_RETURN(auto items, list_labelled(client, collections[i]));
    FED_TRY(delete_items(client, collections[i], items, deleted, deadline));
  }
  FED_TRY(wait_for_pods(client, deadline, out));
  FED_TRY(unlabel_gateways(client));
  for (std::size_t i = 2; i < collections.size(); ++i) {
    FED_ASSIGN_OR_RETURN(auto items, list_labelled(client, collections[i]));
    FED_TRY(delete_items(client, collections[i], items, deleted, deadline));
  }
  out.progress("waiting for the namespace and CRDs to finish terminating...");
  while (true) {
    FED_ASSIGN_OR_RETURN(auto left, labelled_leftovers(client));
    if (left.empty()) return deleted;
    FED_TRY(release_finalizers(client));
    if (clock::now() >= deadline) {
      return fail(ErrorCode::Unavailable, std::to_string(left.size()) + " object(s) labelled " +
                                              std::string(kPartOfSelector) +
                                              " still there after the timeout (e.g. " + left[0] +
                                              "); re-run unjoin, or raise --timeout");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace fed::plugin
