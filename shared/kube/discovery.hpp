#pragma once
// Discovery: which resources the API server serves (/api, /apis, /apis/<g>/<v>), to map a kind
// or a kubectl-style name to its resource, scope and subresources. Results are cached per
// group-version; a miss refreshes that group-version once, so a newly installed CRD is found.
// Thread-safe.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shared/kube/api_result.hpp"
#include "shared/kube/resource_ref.hpp"

namespace fed::kube {

class RestClient;

struct ApiResource {
  GroupVersionResource gvr;
  std::string kind;      // "Deployment"
  std::string singular;  // "deployment"
  bool namespaced = false;
  std::vector<std::string> verbs;         // "get", "list", "watch", "create", ...
  std::vector<std::string> short_names;   // "deploy"
  std::vector<std::string> subresources;  // "status", "scale"

  bool supports(std::string_view verb) const;
  bool has_subresource(std::string_view name) const;
  // The ResourceRef of an object of this resource; the namespace is dropped when the resource
  // is cluster-scoped.
  ResourceRef ref(std::string ns, std::string name = "") const;
};

class Discovery final {
 public:
  explicit Discovery(std::shared_ptr<RestClient> client);

  // The resources of one group-version (cached). NotFound when the server does not serve it.
  ApiResult<std::vector<ApiResource>> resources(const GroupVersion& gv);
  // The resource serving `kind` in its group-version. NotFound names the kind and suggests
  // installing its CRD.
  ApiResult<ApiResource> resource_for(const GroupVersionKind& gvk);
  ApiResult<ApiResource> resource_for(std::string_view api_version, std::string_view kind);
  // The resource with this group/version/plural name.
  ApiResult<ApiResource> resource_for(const GroupVersionResource& gvr);
  // kubectl-style lookup over the preferred versions: "pods", "po", "pod", "Pod",
  // "deployments.apps", "deployments.v1.apps".
  ApiResult<ApiResource> find(std::string_view name);
  // The server's preferred version of every group, core ("v1") first (cached).
  ApiResult<std::vector<GroupVersion>> preferred_versions();

  // Forgets everything; the next lookups ask the server again.
  void invalidate();

 private:
  using Resources = std::shared_ptr<const std::vector<ApiResource>>;
  ApiResult<Resources> load(const GroupVersion& gv, bool refresh);
  ApiResult<std::optional<ApiResource>> find_in_preferred(std::string_view resource,
                                                          std::string_view version,
                                                          std::string_view group, bool refresh);

  std::shared_ptr<RestClient> client_;
  std::mutex mu_;
  std::map<std::string, Resources> by_group_version_;  // key: apiVersion
  std::optional<std::vector<GroupVersion>> preferred_;
};

// Parses an APIResourceList document into resources (subresources attached to their parent).
std::vector<ApiResource> parse_api_resource_list(const nlohmann::json& list,
                                                 const GroupVersion& gv);

}  // namespace fed::kube
