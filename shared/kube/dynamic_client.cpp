#include "shared/kube/dynamic_client.hpp"

#include <utility>

#include "shared/util/json_text.hpp"

namespace fed::kube {
namespace {

constexpr std::int64_t kDefaultPageSize = 500;

std::string dump(const nlohmann::json& j) {
  return util::json_text(j);
}

ApiError invalid(std::string message) {
  return ApiError::from_error(Error(ErrorCode::Invalid, std::move(message)));
}

std::string metadata_string(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return {};
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return {};
  auto it = md->find(key);
  return it != md->end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The request must name the same namespace as the body, or the server rejects it.
nlohmann::json with_namespace(const nlohmann::json& object, const ResourceRef& ref) {
  if (ref.ns.empty() || !object.is_object()) return object;
  nlohmann::json copy = object;
  copy["metadata"]["namespace"] = ref.ns;
  return copy;
}

}  // namespace

bool patch_has_resource_version(PatchType type, const nlohmann::json& patch) {
  switch (type) {
    case PatchType::Apply:
      return true;  // declarative: applying twice gives the same result
    case PatchType::Merge:
    case PatchType::StrategicMerge:
      return !metadata_string(patch, "resourceVersion").empty();
    case PatchType::Json:
      if (!patch.is_array()) return false;
      for (const auto& op : patch) {
        if (op.is_object() && op.value("op", "") == "test" &&
            op.value("path", "") == "/metadata/resourceVersion") {
          return true;
        }
      }
      return false;
  }
  return false;
}

DynamicClient::DynamicClient(std::shared_ptr<RestClient> rest, std::shared_ptr<Discovery> discovery)
    : rest_(std::move(rest)), discovery_(std::move(discovery)) {}

Result<std::shared_ptr<DynamicClient>> DynamicClient::create(RestConfig config,
                                                             RestClientOptions options) {
  FED_ASSIGN_OR_RETURN(auto rest, RestClient::create(std::move(config), options));
  auto discovery = std::make_shared<Discovery>(rest);
  return std::make_shared<DynamicClient>(std::move(rest), std::move(discovery));
}

ApiResult<nlohmann::json> DynamicClient::get(const ResourceRef& ref) {
  if (ref.name.empty()) return invalid("get " + ref.to_string() + ": a name is required");
  ApiRequest req;
  req.path = path_of(ref);
  return rest_->send_json(req);
}

ApiResult<nlohmann::json> DynamicClient::list(const ResourceRef& collection,
                                              const ListOptions& options, std::stop_token stop) {
  ApiRequest req;
  req.stop = std::move(stop);
  req.path = path_of(collection.collection());
  Query q;
  add_to_query(q, options);
  req.query = q.str();
  return rest_->send_json(req);
}

ApiResult<nlohmann::json> DynamicClient::list_all(const ResourceRef& collection,
                                                  ListOptions options, std::stop_token stop) {
  if (options.limit <= 0) options.limit = kDefaultPageSize;
  const ListOptions first = options;
  bool restarted = false;
  nlohmann::json items = nlohmann::json::array();
  while (true) {
    auto page = list(collection, options, stop);
    if (!page) {
      // The continue token expired (the snapshot was compacted): start over once.
      if (page.error().is_gone() && !options.continue_token.empty() && !restarted) {
        restarted = true;
        options = first;
        items = nlohmann::json::array();
        continue;
      }
      return std::move(page).error();
    }
    nlohmann::json& p = *page;
    if (auto it = p.find("items"); it != p.end() && it->is_array()) {
      for (auto& item : *it) items.push_back(std::move(item));
    }
    const std::string next = metadata_string(p, "continue");
    if (next.empty()) {
      p["items"] = std::move(items);
      if (p.contains("metadata") && p["metadata"].is_object()) {
        p["metadata"].erase("continue");
        p["metadata"].erase("remainingItemCount");
      }
      return std::move(p);
    }
    options.continue_token = next;
    // Later pages are served from the first page's snapshot; a resourceVersion is not allowed.
    options.resource_version.clear();
    options.resource_version_match.clear();
  }
}

ApiResult<nlohmann::json> DynamicClient::write(std::string method, const ResourceRef& ref,
                                               std::string query, const nlohmann::json& body,
                                               std::string content_type,
                                               std::optional<Idempotency> idempotency) {
  ApiRequest req;
  req.method = std::move(method);
  req.path = path_of(ref);
  req.query = std::move(query);
  if (!body.is_null()) req.body = dump(body);
  req.content_type = std::move(content_type);
  req.idempotency = idempotency;
  return rest_->send_json(req);
}

ApiResult<nlohmann::json> DynamicClient::create(const ResourceRef& collection,
                                                const nlohmann::json& object,
                                                const WriteOptions& options) {
  if (!object.is_object()) return invalid("create " + collection.to_string() + ": not an object");
  Query q;
  add_to_query(q, options);
  // A subresource of a named object (serviceaccounts/x/token, pods/x/eviction) is posted to
  // as is; anything else goes to the collection.
  const bool to_subresource = !collection.name.empty() && !collection.subresource.empty();
  return write("POST", to_subresource ? collection : collection.collection(), q.str(),
               with_namespace(object, collection), "application/json", Idempotency::NonIdempotent);
}

ApiResult<nlohmann::json> DynamicClient::update(const ResourceRef& ref,
                                                const nlohmann::json& object,
                                                const WriteOptions& options) {
  if (ref.name.empty()) return invalid("update " + ref.to_string() + ": a name is required");
  if (!object.is_object()) return invalid("update " + ref.to_string() + ": not an object");
  Query q;
  add_to_query(q, options);
  return write("PUT", ref, q.str(), with_namespace(object, ref), "application/json",
               Idempotency::Idempotent);
}

ApiResult<nlohmann::json> DynamicClient::patch(const ResourceRef& ref, PatchType type,
                                               std::string_view patch,
                                               const WriteOptions& options) {
  if (ref.name.empty()) return invalid("patch " + ref.to_string() + ": a name is required");
  const auto doc = nlohmann::json::parse(patch, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() && type != PatchType::Apply) {
    return invalid("patch " + ref.to_string() + ": the patch is not valid JSON");
  }
  Query q;
  add_to_query(q, options);
  ApiRequest req;
  req.method = "PATCH";
  req.path = path_of(ref);
  req.query = q.str();
  req.body = std::string(patch);
  req.content_type = std::string(content_type_of(type));
  req.idempotency =
      patch_has_resource_version(type, doc) ? Idempotency::Idempotent : Idempotency::NonIdempotent;
  return rest_->send_json(req);
}

ApiResult<nlohmann::json> DynamicClient::apply(const ResourceRef& ref, const nlohmann::json& object,
                                               const ApplyOptions& options) {
  if (ref.name.empty()) return invalid("apply " + ref.to_string() + ": a name is required");
  if (options.field_manager.empty()) {
    return invalid("apply " + ref.to_string() +
                   ": server-side apply needs a field manager; set ApplyOptions::field_manager");
  }
  if (!object.is_object() || !object.contains("apiVersion") || !object.contains("kind")) {
    return invalid("apply " + ref.to_string() + ": the object needs apiVersion and kind");
  }
  Query q;
  add_to_query(q, options);
  // JSON is YAML, so the apply content type accepts the JSON text as is.
  return write("PATCH", ref, q.str(), with_namespace(object, ref),
               std::string(content_type_of(PatchType::Apply)), Idempotency::Idempotent);
}

ApiResult<nlohmann::json> DynamicClient::remove(const ResourceRef& ref,
                                                const DeleteOptions& options) {
  if (ref.name.empty()) return invalid("delete " + ref.to_string() + ": a name is required");
  Query q;
  add_to_query(q, options);
  const auto body = delete_options_body(options);
  return write("DELETE", ref, q.str(), body, body.is_null() ? "" : "application/json",
               Idempotency::Idempotent);
}

ApiResult<ResourceRef> DynamicClient::ref_for(const nlohmann::json& object,
                                              std::string_view default_namespace) {
  if (!object.is_object()) return invalid("expected a Kubernetes object (a JSON object)");
  const std::string api_version = object.value("apiVersion", "");
  const std::string kind = object.value("kind", "");
  const std::string name = metadata_string(object, "name");
  if (api_version.empty() || kind.empty()) {
    return invalid("object \"" + name + "\" has no apiVersion or kind; set both");
  }
  FED_API_ASSIGN_OR_RETURN(auto resource, discovery_->resource_for(api_version, kind));
  std::string ns = metadata_string(object, "namespace");
  if (ns.empty()) ns = std::string(default_namespace);
  if (ns.empty()) ns = rest_->config().default_namespace;
  if (ns.empty()) ns = "default";
  return resource.ref(std::move(ns), name);
}

ApiResult<nlohmann::json> DynamicClient::get_object(const nlohmann::json& object) {
  FED_API_ASSIGN_OR_RETURN(auto ref, ref_for(object));
  return get(ref);
}

ApiResult<nlohmann::json> DynamicClient::create_object(const nlohmann::json& object,
                                                       const WriteOptions& options) {
  FED_API_ASSIGN_OR_RETURN(auto ref, ref_for(object));
  return create(ref, object, options);
}

ApiResult<nlohmann::json> DynamicClient::update_object(const nlohmann::json& object,
                                                       const WriteOptions& options) {
  FED_API_ASSIGN_OR_RETURN(auto ref, ref_for(object));
  return update(ref, object, options);
}

ApiResult<nlohmann::json> DynamicClient::apply_object(const nlohmann::json& object,
                                                      const ApplyOptions& options) {
  FED_API_ASSIGN_OR_RETURN(auto ref, ref_for(object));
  return apply(ref, object, options);
}

ApiResult<nlohmann::json> DynamicClient::remove_object(const nlohmann::json& object,
                                                       const DeleteOptions& options) {
  FED_API_ASSIGN_OR_RETURN(auto ref, ref_for(object));
  return remove(ref, options);
}

}  // namespace fed::kube
