#include "plugin/manifests/render.hpp"

#include "plugin/manifests/embedded_manifests.hpp"
#include "shared/fedapi/manifest.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Sets the container images of a workload's pod template: the manifests name the defaults,
// each replaced by its option.
void set_images(json& object, const RenderOptions& options) {
  if (!object.contains("spec") || !object["spec"].contains("template")) return;
  json& pod = object["spec"]["template"]["spec"];
  for (const char* list : {"containers", "initContainers"}) {
    if (!pod.contains(list)) continue;
    for (auto& c : pod[list]) {
      const std::string image = c.value("image", "");
      if (image == kDefaultImage) c["image"] = options.image;
      if (image == kDefaultEtcdImage) c["image"] = options.etcd_image;
    }
  }
}

// The node agent DaemonSet's flags that follow the options.
void set_node_agent_args(json& object, const RenderOptions& options) {
  if (object.value("kind", "") != "DaemonSet" ||
      object["metadata"].value("name", "") != "fed-agent")
    return;
  json& args = object["spec"]["template"]["spec"]["containers"][0]["args"];
  if (options.direct_routing) args.push_back("--direct-routing");
  if (options.wireguard != "auto") args.push_back("--wireguard-backend=" + options.wireguard);
}

// The roles whose first argument names one that serves an admission webhook.
void set_webhook_args(json& object, const RenderOptions& options) {
  if (!options.webhook_caller_auth || object.value("kind", "") != "Deployment") return;
  for (auto& container : object["spec"]["template"]["spec"]["containers"]) {
    json& args = container["args"];
    if (!args.is_array() || args.empty() || !args[0].is_string()) continue;
    const std::string role = args[0].get<std::string>();
    if (role == "manager" || role == "tenancy" || role == "podpreset") {
      args.push_back("--webhook-caller-auth");
    }
  }
}

void set_namespace(json& object, const std::string& ns) {
  json& meta = object["metadata"];
  if (object.value("kind", "") == "Namespace") {
    meta["name"] = ns;
    return;
  }
  // Only the federation's own namespace moves; kube-node-lease (the virtual nodes' Leases)
  // stays where Kubernetes keeps it.
  if (meta.value("namespace", "") == fedapi::kNamespace) meta["namespace"] = ns;
  if (object.contains("subjects")) {
    for (auto& s : object["subjects"]) {
      if (s.value("namespace", "") == fedapi::kNamespace) s["namespace"] = ns;
    }
  }
}

// Every object is labelled, so that "nothing of ours left" is one label query.
void set_part_of(json& object) {
  object["metadata"]["labels"][std::string(kPartOfLabel)] = std::string(kPartOfValue);
}

// Whether the object of `path` belongs to a cluster of `role`.
bool wanted(std::string_view path, FederationRole role) {
  if (starts_with(path, "crds/")) {
    // Membership and offloading are the host's business; members get the peering kinds.
    for (std::string_view host_only :
         {"federatedclusters", "endpointmappings", "directpeerings", "namespaceoffloadings",
          "namespacemaps", "featureconfigs", "deploymentreplications", "federationhosts",
          "federationleaders"}) {
      if (path.find(host_only) != std::string_view::npos) return role == FederationRole::Host;
    }
    return true;
  }
  if (path == "namespace.yaml" || path == "ipam-writes-policy.yaml" ||
      starts_with(path, "agent/")) {
    return true;
  }
  if (starts_with(path, "manager/")) return role == FederationRole::Host;
  if (starts_with(path, "federation/") || starts_with(path, "tenancy/")) {
    return role == FederationRole::Member;
  }
  return false;
}

Result<std::vector<json>> render_for(const ClusterIdentity& id, const RenderOptions& options) {
  FED_ASSIGN_OR_RETURN(auto all, render_all(options));
  std::vector<json> out;
  for (auto& r : all) {
    if (wanted(r.path, id.role)) out.push_back(std::move(r.object));
  }
  out.push_back(federation_configmap(id, options.namespace_name));
  return out;
}

}  // namespace

Status validate_wireguard_flag(const std::string& value) {
  if (value == "auto" || value == "kernel" || value == "wireguard-go") return ok();
  return fail(ErrorCode::Invalid,
              "--wireguard must be auto (the kernel's where the node has the module, else "
              "wireguard-go; the default), kernel or wireguard-go, not \"" +
                  value + "\"");
}

Result<std::vector<RenderedObject>> render_all(const RenderOptions& options) {
  std::vector<RenderedObject> out;
  for (const auto& m : embedded_manifests()) {
    auto docs = fedapi::parse_manifests(m.text, "manifests/" + std::string(m.path));
    if (!docs) {
      return fail(ErrorCode::Internal,
                  "embedded manifest broken (rebuild kubectl-fed): " + docs.error().message());
    }
    for (auto& object : *docs) {
      set_images(object, options);
      set_node_agent_args(object, options);
      set_webhook_args(object, options);
      set_namespace(object, options.namespace_name);
      set_part_of(object);
      out.push_back({std::string(m.path), std::move(object)});
    }
  }
  return out;
}

Result<std::vector<json>> render_host(const ClusterIdentity& id, const RenderOptions& options) {
  return render_for(id, options);
}

Result<std::vector<json>> render_member(const ClusterIdentity& id, const RenderOptions& options) {
  FED_ASSIGN_OR_RETURN(auto objects, render_for(id, options));
  std::vector<json> out;
  for (auto& object : objects) {
    const std::string kind = object.value("kind", "");
    const std::string name = object["metadata"].value("name", "");
    // No cap, no namespace webhook: nothing for the API server to wait on.
    if (kind == "ValidatingWebhookConfiguration" && options.tenancy.namespace_quota == 0) continue;
    if (kind == "Deployment" && name == "fed-tenancy") {
      json& args = object["spec"]["template"]["spec"]["containers"][0]["args"];
      for (auto& arg : tenancy_args(options.tenancy)) args.push_back(std::move(arg));
    }
    out.push_back(std::move(object));
  }
  return out;
}

Result<std::vector<json>> render_feature(std::string_view name, const RenderOptions& options) {
  FED_ASSIGN_OR_RETURN(auto all, render_all(options));
  const std::string dir = "features/" + std::string(name) + "/";
  std::vector<json> out;
  for (auto& r : all) {
    if (starts_with(r.path, dir)) out.push_back(std::move(r.object));
  }
  if (out.empty()) return fail(ErrorCode::Internal, "no embedded manifests under " + dir);
  return out;
}

std::vector<std::string> tenancy_args(const TenancySettings& settings) {
  std::vector<std::string> args{"--namespace-quota", std::to_string(settings.namespace_quota)};
  std::vector<std::string> quota;
  if (!settings.share_cpu.empty()) quota.push_back("requests.cpu=" + settings.share_cpu);
  if (!settings.share_memory.empty()) quota.push_back("requests.memory=" + settings.share_memory);
  if (!quota.empty()) {
    args.push_back("--quota");
    args.push_back(util::join(quota, ","));
  }
  if (!settings.local_pod_cidr.empty()) {
    args.push_back("--local-pod-cidr");
    args.push_back(settings.local_pod_cidr);
  }
  return args;
}

json federation_configmap(const ClusterIdentity& id, std::string_view namespace_name) {
  const bool host = id.role == FederationRole::Host;
  json data{{"clusterID", id.cluster_id},
            {"role", host ? "host" : "member"},
            {"podCIDR", id.pod_cidr},
            {"serviceCIDR", id.service_cidr},
            {"federationID", id.federation_id.empty() && host ? id.cluster_id : id.federation_id}};
  return json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata",
               {{"name", std::string(kFederationConfigMap)},
                {"namespace", std::string(namespace_name)},
                {"labels", {{std::string(kPartOfLabel), std::string(kPartOfValue)}}}}},
              {"data", data}};
}

json object_list(const std::vector<json>& items) {
  return json{
      {"apiVersion", "v1"}, {"kind", "List"}, {"metadata", json::object()}, {"items", items}};
}

std::string object_label(const json& object) {
  return util::to_lower(object.value("kind", "object")) + "/" +
         object["metadata"].value("name", "");
}

}  // namespace fed::plugin
