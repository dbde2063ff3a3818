#include "shared/kube/discovery.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "shared/kube/rest_client.hpp"

namespace fed::kube {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> strings(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool matches_name(const ApiResource& r, const std::string& name) {
  return r.gvr.resource == name || r.singular == name || lower(r.kind) == name ||
         contains(r.short_names, name);
}

ApiError not_found(std::string message) {
  return ApiError(ErrorCode::NotFound, 0, "NotFound", std::move(message));
}

}  // namespace

bool ApiResource::supports(std::string_view verb) const {
  return contains(verbs, verb);
}

bool ApiResource::has_subresource(std::string_view name) const {
  return contains(subresources, name);
}

ResourceRef ApiResource::ref(std::string ns, std::string name) const {
  ResourceRef r;
  r.gvr = gvr;
  if (namespaced) r.ns = std::move(ns);
  r.name = std::move(name);
  return r;
}

std::vector<ApiResource> parse_api_resource_list(const nlohmann::json& list,
                                                 const GroupVersion& gv) {
  std::vector<ApiResource> out;
  auto items = list.find("resources");
  if (!list.is_object() || items == list.end() || !items->is_array()) return out;
  std::vector<std::pair<std::string, std::string>> subs;  // parent, subresource
  for (const auto& r : *items) {
    if (!r.is_object() || !r.contains("name") || !r["name"].is_string()) continue;
    const auto name = r["name"].get<std::string>();
    if (const auto slash = name.find('/'); slash != std::string::npos) {
      subs.emplace_back(name.substr(0, slash), name.substr(slash + 1));
      continue;
    }
    ApiResource res;
    // A resource may live in another group-version than the list (rare); honour it.
    res.gvr = {r.value("group", gv.group), r.value("version", gv.version), name};
    if (res.gvr.version.empty()) res.gvr.version = gv.version;
    res.kind = r.value("kind", "");
    res.singular = r.value("singularName", "");
    if (res.singular.empty()) res.singular = lower(res.kind);
    res.namespaced = r.value("namespaced", false);
    res.verbs = strings(r, "verbs");
    res.short_names = strings(r, "shortNames");
    out.push_back(std::move(res));
  }
  for (const auto& [parent, sub] : subs) {
    for (auto& res : out) {
      if (res.gvr.resource == parent) res.subresources.push_back(sub);
    }
  }
  return out;
}

Discovery::Discovery(std::shared_ptr<RestClient> client) : client_(std::move(client)) {}

void Discovery::invalidate() {
  std::lock_guard lock(mu_);
  by_group_version_.clear();
  preferred_.reset();
}

ApiResult<Discovery::Resources> Discovery::load(const GroupVersion& gv, bool refresh) {
  const std::string key = gv.api_version();
  if (!refresh) {
    std::lock_guard lock(mu_);
    if (auto it = by_group_version_.find(key); it != by_group_version_.end()) return it->second;
  }
  // Fetched without the lock: two threads may both fetch; the last one wins, harmlessly.
  ApiRequest req;
  req.path = gv.path();
  auto doc = client_->send_json(req);
  if (!doc) {
    ApiError err = std::move(doc).error();
    if (err.is_not_found()) {
      return not_found("the server does not serve API version \"" + key +
                       "\"; check apiVersion or install the CRD that provides it");
    }
    return err;
  }
  auto list = std::make_shared<const std::vector<ApiResource>>(parse_api_resource_list(*doc, gv));
  std::lock_guard lock(mu_);
  by_group_version_[key] = list;
  return Resources(list);
}

ApiResult<std::vector<ApiResource>> Discovery::resources(const GroupVersion& gv) {
  FED_API_ASSIGN_OR_RETURN(auto list, load(gv, false));
  return *list;
}

ApiResult<ApiResource> Discovery::resource_for(const GroupVersionKind& gvk) {
  for (bool refresh : {false, true}) {
    FED_API_ASSIGN_OR_RETURN(auto list, load(gvk.group_version(), refresh));
    for (const auto& r : *list) {
      if (r.kind == gvk.kind) return r;
    }
  }
  return not_found("the server has no kind \"" + gvk.kind + "\" in \"" +
                   gvk.group_version().api_version() +
                   "\"; check the kind's spelling or install its CRD");
}

ApiResult<ApiResource> Discovery::resource_for(std::string_view api_version,
                                               std::string_view kind) {
  auto gv = GroupVersion::parse(api_version);
  if (!gv) return Unexpected(std::move(gv).error());
  return resource_for(GroupVersionKind{gv->group, gv->version, std::string(kind)});
}

ApiResult<ApiResource> Discovery::resource_for(const GroupVersionResource& gvr) {
  for (bool refresh : {false, true}) {
    FED_API_ASSIGN_OR_RETURN(auto list, load(gvr.group_version(), refresh));
    for (const auto& r : *list) {
      if (r.gvr.resource == gvr.resource) return r;
    }
  }
  return not_found("the server has no resource \"" + gvr.to_string() + "\"");
}

ApiResult<std::vector<GroupVersion>> Discovery::preferred_versions() {
  {
    std::lock_guard lock(mu_);
    if (preferred_) return *preferred_;
  }
  std::vector<GroupVersion> out;
  ApiRequest core;
  core.path = "/api";
  FED_API_ASSIGN_OR_RETURN(auto api, client_->send_json(core));
  for (const auto& v : strings(api, "versions")) out.push_back({"", v});
  ApiRequest groups;
  groups.path = "/apis";
  FED_API_ASSIGN_OR_RETURN(auto apis, client_->send_json(groups));
  if (auto gs = apis.find("groups"); gs != apis.end() && gs->is_array()) {
    for (const auto& g : *gs) {
      const auto name = g.value("name", "");
      std::string version;
      if (auto pv = g.find("preferredVersion"); pv != g.end() && pv->is_object()) {
        version = pv->value("version", "");
      }
      if (version.empty()) {
        if (auto vs = g.find("versions"); vs != g.end() && vs->is_array() && !vs->empty()) {
          version = (*vs)[0].value("version", "");
        }
      }
      if (!name.empty() && !version.empty()) out.push_back({name, version});
    }
  }
  std::lock_guard lock(mu_);
  preferred_ = out;
  return out;
}

ApiResult<std::optional<ApiResource>> Discovery::find_in_preferred(std::string_view resource,
                                                                   std::string_view version,
                                                                   std::string_view group,
                                                                   bool refresh) {
  if (refresh) invalidate();
  FED_API_ASSIGN_OR_RETURN(auto versions, preferred_versions());
  // An explicit version need not be the preferred one.
  if (!version.empty()) versions = {GroupVersion{std::string(group), std::string(version)}};
  const std::string name = lower(resource);
  for (const auto& gv : versions) {
    if (!group.empty() && gv.group != group) continue;
    auto list = load(gv, false);
    if (!list) {
      // An aggregated API that is down (metrics.k8s.io) must not hide every other group.
      spdlog::debug("discovery of {} failed: {}", gv.api_version(), list.error().message());
      continue;
    }
    for (const auto& r : **list) {
      if (matches_name(r, name)) return std::optional<ApiResource>(r);
    }
  }
  return std::optional<ApiResource>();
}

ApiResult<ApiResource> Discovery::find(std::string_view name) {
  // "resource", "resource.group" or "resource.version.group" (groups contain dots too).
  const auto dot = name.find('.');
  const std::string_view resource = name.substr(0, dot);
  std::vector<std::pair<std::string, std::string>> candidates;  // version, group
  if (dot == std::string_view::npos) {
    candidates.emplace_back("", "");
  } else {
    const auto rest = name.substr(dot + 1);
    const auto dot2 = rest.find('.');
    if (dot2 != std::string_view::npos) {
      candidates.emplace_back(std::string(rest.substr(0, dot2)),
                              std::string(rest.substr(dot2 + 1)));
    }
    candidates.emplace_back("", std::string(rest));
  }
  for (bool refresh : {false, true}) {
    for (const auto& [version, group] : candidates) {
      FED_API_ASSIGN_OR_RETURN(auto found, find_in_preferred(resource, version, group, refresh));
      if (found) return std::move(*found);
    }
  }
  return not_found("the server doesn't have a resource type \"" + std::string(name) +
                   "\"; list them with: kubectl api-resources");
}

}  // namespace fed::kube
