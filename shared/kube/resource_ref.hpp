#pragma once
// Addressing Kubernetes resources: group/version/resource names, a ResourceRef (resource +
// namespace + name + subresource), the REST paths they map to, and URL query building. Pure.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::kube {

struct GroupVersion {
  std::string group;  // "" for the core group
  std::string version;

  // Parses an apiVersion: "v1" -> {"", "v1"}, "apps/v1" -> {"apps", "v1"}.
  static Result<GroupVersion> parse(std::string_view api_version);
  // The apiVersion string: "v1" or "apps/v1".
  std::string api_version() const;
  // The discovery path: "/api/v1" or "/apis/apps/v1".
  std::string path() const;
  friend bool operator==(const GroupVersion&, const GroupVersion&) = default;
};

struct GroupVersionResource {
  std::string group, version, resource;  // resource is the plural: "deployments"

  GroupVersion group_version() const { return {group, version}; }
  // "deployments.v1.apps" / "pods.v1": for messages.
  std::string to_string() const;
  friend bool operator==(const GroupVersionResource&, const GroupVersionResource&) = default;
};

struct GroupVersionKind {
  std::string group, version, kind;  // kind is CamelCase: "Deployment"

  GroupVersion group_version() const { return {group, version}; }
  // "apps/v1, Kind=Deployment": for messages.
  std::string to_string() const;
  friend bool operator==(const GroupVersionKind&, const GroupVersionKind&) = default;
};

// One object (name set) or a collection (name empty) of a resource. `ns` is empty for
// cluster-scoped resources and for lists/watches across all namespaces.
struct ResourceRef {
  GroupVersionResource gvr;
  std::string ns;
  std::string name;
  std::string subresource;  // "status", "scale", ... (needs a name)

  ResourceRef named(std::string n) const {
    ResourceRef r = *this;
    r.name = std::move(n);
    return r;
  }
  ResourceRef in_namespace(std::string n) const {
    ResourceRef r = *this;
    r.ns = std::move(n);
    return r;
  }
  ResourceRef sub(std::string s) const {
    ResourceRef r = *this;
    r.subresource = std::move(s);
    return r;
  }
  // The collection this object belongs to (name and subresource cleared).
  ResourceRef collection() const {
    ResourceRef r = *this;
    r.name.clear();
    r.subresource.clear();
    return r;
  }
  // "deployments.v1.apps default/web": for messages.
  std::string to_string() const;
};

// Core collections several files name (in a unity build, one definition each).
inline const ResourceRef kPods{{"", "v1", "pods"}, "", "", ""};

// The REST path: /api/v1/namespaces/<ns>/pods/<name>/<sub> or /apis/<g>/<v>/..., with the
// namespace, name and subresource path-escaped.
std::string path_of(const ResourceRef& ref);

// Percent-encodes everything outside RFC 3986's unreserved set.
std::string url_encode(std::string_view s);

// Builds a URL query string ("a=1&b=x%20y"), keys in insertion order.
class Query final {
 public:
  // Adds key=value (both encoded). Empty values are added as "key=".
  Query& add(std::string_view key, std::string_view value);
  // Adds key=value only when value is not empty.
  Query& add_if(std::string_view key, std::string_view value);
  bool empty() const { return text_.empty(); }
  // The encoded query without the leading '?'.
  const std::string& str() const { return text_; }
  // "?" + str(), or "" when empty: ready to append to a path.
  std::string suffix() const { return text_.empty() ? "" : "?" + text_; }

 private:
  std::string text_;
};

}  // namespace fed::kube
