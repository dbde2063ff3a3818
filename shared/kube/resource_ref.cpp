#include "shared/kube/resource_ref.hpp"

namespace fed::kube {
namespace {

bool is_unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

}  // namespace

Result<GroupVersion> GroupVersion::parse(std::string_view api_version) {
  if (api_version.empty()) {
    return fail(ErrorCode::Invalid, "apiVersion is empty; set it to e.g. \"v1\" or \"apps/v1\"");
  }
  const auto slash = api_version.find('/');
  if (slash == std::string_view::npos) return GroupVersion{"", std::string(api_version)};
  const auto group = api_version.substr(0, slash);
  const auto version = api_version.substr(slash + 1);
  if (group.empty() || version.empty() || version.find('/') != std::string_view::npos) {
    return fail(ErrorCode::Invalid, "apiVersion \"" + std::string(api_version) +
                                        "\" is malformed; expected \"<group>/<version>\" or "
                                        "\"<version>\"");
  }
  return GroupVersion{std::string(group), std::string(version)};
}

std::string GroupVersion::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string GroupVersion::path() const {
  return group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
}

std::string GroupVersionResource::to_string() const {
  std::string s = resource + "." + version;
  if (!group.empty()) s += "." + group;
  return s;
}

std::string GroupVersionKind::to_string() const {
  return GroupVersion{group, version}.api_version() + ", Kind=" + kind;
}

std::string ResourceRef::to_string() const {
  std::string s = gvr.to_string();
  if (!ns.empty() || !name.empty()) s += " ";
  if (!ns.empty()) s += ns + (name.empty() ? "" : "/");
  s += name;
  if (!subresource.empty()) s += " (" + subresource + ")";
  return s;
}

std::string path_of(const ResourceRef& ref) {
  std::string p = ref.gvr.group_version().path();
  if (!ref.ns.empty()) p += "/namespaces/" + url_encode(ref.ns);
  p += "/" + ref.gvr.resource;
  if (!ref.name.empty()) {
    p += "/" + url_encode(ref.name);
    if (!ref.subresource.empty()) p += "/" + url_encode(ref.subresource);
  }
  return p;
}

std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c)) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

Query& Query::add(std::string_view key, std::string_view value) {
  if (!text_.empty()) text_.push_back('&');
  text_ += url_encode(key);
  text_.push_back('=');
  text_ += url_encode(value);
  return *this;
}

Query& Query::add_if(std::string_view key, std::string_view value) {
  if (!value.empty()) add(key, value);
  return *this;
}

}  // namespace fed::kube
