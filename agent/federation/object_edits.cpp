#include "federation/object_edits.hpp"

#include <algorithm>
#include <string>

namespace fed::federation {

using nlohmann::json;

bool has_finalizer(const json& object, std::string_view finalizer) {
  const json list = object["metadata"].value("finalizers", json::array());
  return std::find(list.begin(), list.end(), std::string(finalizer)) != list.end();
}

Status set_finalizer(kube::DynamicClient& client, const kube::ResourceRef& ref, const json& object,
                     std::string_view finalizer, bool present) {
  json list = json::array();
  for (const auto& f : object["metadata"].value("finalizers", json::array())) {
    if (f != finalizer) list.push_back(f);
  }
  if (present) list.push_back(finalizer);
  json patch{{"metadata",
              {{"resourceVersion", object["metadata"].value("resourceVersion", "")},
               {"finalizers", list}}}};
  auto r = client.patch(ref, kube::PatchType::Merge, patch.dump());
  if (!r && !r.error().is_not_found()) return r.error().to_error();
  return ok();
}

Status remove_if_present(kube::DynamicClient& client, const kube::ResourceRef& ref) {
  auto r = client.remove(ref);
  if (r || r.error().is_not_found()) return ok();
  return r.error().to_error();
}

}  // namespace fed::federation
