#pragma once
// DynamicClient: the REST verbs on unstructured objects (nlohmann::json) — get, list (one page
// or all pages), create, update, the patch flavours, server-side apply, delete, subresources —
// addressed by ResourceRef, plus helpers that derive the address of a JSON object from its
// apiVersion/kind/metadata through discovery. Thread-safe.

#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/kube/api_result.hpp"
#include "shared/kube/discovery.hpp"
#include "shared/kube/request_options.hpp"
#include "shared/kube/resource_ref.hpp"
#include "shared/kube/rest_client.hpp"

namespace fed::kube {

class DynamicClient final {
 public:
  DynamicClient(std::shared_ptr<RestClient> rest, std::shared_ptr<Discovery> discovery);
  // A RestClient and a Discovery for `config`.
  static Result<std::shared_ptr<DynamicClient>> create(RestConfig config,
                                                       RestClientOptions options = {});

  ApiResult<nlohmann::json> get(const ResourceRef& ref);
  // One page of a collection (ref.name empty); options.limit/continue_token page through it.
  // `stop` cancels the request and its retries (informers pass theirs).
  ApiResult<nlohmann::json> list(const ResourceRef& collection, const ListOptions& options = {},
                                 std::stop_token stop = {});
  // Every page of a collection (pages of `options.limit`, default 500), as one List whose
  // metadata.resourceVersion is that of the snapshot. A continue token that expires mid-way
  // (410) restarts the listing from the first page once.
  ApiResult<nlohmann::json> list_all(const ResourceRef& collection, ListOptions options = {},
                                     std::stop_token stop = {});
  // POST to the collection, or to a named object's subresource when `collection` names one
  // (serviceaccounts/x/token, pods/x/eviction). The namespace of the ref wins over the object's.
  ApiResult<nlohmann::json> create(const ResourceRef& collection, const nlohmann::json& object,
                                   const WriteOptions& options = {});
  // PUT; the object's metadata.resourceVersion makes it conditional (409 Conflict if stale).
  ApiResult<nlohmann::json> update(const ResourceRef& ref, const nlohmann::json& object,
                                   const WriteOptions& options = {});
  // PATCH with a merge, JSON or strategic-merge patch document (`patch` is its text).
  ApiResult<nlohmann::json> patch(const ResourceRef& ref, PatchType type, std::string_view patch,
                                  const WriteOptions& options = {});
  // Server-side apply of `object` (a full or partial manifest with apiVersion and kind). A 409
  // apply conflict is an ApiError whose conflicting_managers() names the other field owners.
  ApiResult<nlohmann::json> apply(const ResourceRef& ref, const nlohmann::json& object,
                                  const ApplyOptions& options);
  // DELETE; returns what the server returned (the object, or a Status).
  ApiResult<nlohmann::json> remove(const ResourceRef& ref, const DeleteOptions& options = {});

  // The status subresource of `ref`.
  ApiResult<nlohmann::json> get_status(const ResourceRef& ref) { return get(ref.sub("status")); }
  ApiResult<nlohmann::json> update_status(const ResourceRef& ref, const nlohmann::json& object,
                                          const WriteOptions& options = {}) {
    return update(ref.sub("status"), object, options);
  }
  ApiResult<nlohmann::json> patch_status(const ResourceRef& ref, PatchType type,
                                         std::string_view body, const WriteOptions& options = {}) {
    return patch(ref.sub("status"), type, body, options);
  }

  // GET of any path ("/version", "/api/v1/nodes/n1/proxy/configz"): the body as text.
  ApiResult<std::string> get_raw(std::string_view path_and_query) {
    return rest_->get_raw(path_and_query);
  }

  // The address of an object from its apiVersion, kind, metadata.namespace and metadata.name.
  // Namespaced objects without a namespace go to `default_namespace` (the context's namespace
  // when empty). Invalid when apiVersion/kind are missing; NotFound when the kind is unknown.
  ApiResult<ResourceRef> ref_for(const nlohmann::json& object,
                                 std::string_view default_namespace = "");
  // The same verbs, addressed by the object itself.
  ApiResult<nlohmann::json> get_object(const nlohmann::json& object);
  ApiResult<nlohmann::json> create_object(const nlohmann::json& object,
                                          const WriteOptions& options = {});
  ApiResult<nlohmann::json> update_object(const nlohmann::json& object,
                                          const WriteOptions& options = {});
  ApiResult<nlohmann::json> apply_object(const nlohmann::json& object, const ApplyOptions& options);
  ApiResult<nlohmann::json> remove_object(const nlohmann::json& object,
                                          const DeleteOptions& options = {});

  RestClient& rest() { return *rest_; }
  const std::shared_ptr<RestClient>& rest_ptr() const { return rest_; }
  Discovery& discovery() { return *discovery_; }

 private:
  ApiResult<nlohmann::json> write(std::string method, const ResourceRef& ref, std::string query,
                                  const nlohmann::json& body, std::string content_type,
                                  std::optional<Idempotency> idempotency);

  std::shared_ptr<RestClient> rest_;
  std::shared_ptr<Discovery> discovery_;
};

// Whether a patch document carries a resourceVersion precondition (metadata.resourceVersion in
// a merge patch, or a JSON-patch "test" of /metadata/resourceVersion): such a patch is safe to
// resend after a broken connection, because a repeat fails with 409 instead of applying twice.
bool patch_has_resource_version(PatchType type, const nlohmann::json& patch);

}  // namespace fed::kube
