#pragma once
// Writing twins on a member, shared by the reflectors of Services and of pod configuration: an
// object is "ours" when it carries the origin-cluster label of this host; anything else of the
// same name is left alone (a warning), never adopted or deleted.

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"

namespace fed::offload {

// Whether `object` was made by the federation of host `host_id`.
bool ours(const nlohmann::json& object, const std::string& host_id);

// Creates `desired` on `member`, or brings the existing twin to it: its labels, and its other
// top-level fields merged (arrays replaced whole) — except `replaced`, which are set to the
// desired value whole, or removed when `desired` has none (a ConfigMap key removed on the host
// goes from the twin). Written only when something differs. `what` names it in messages.
Status ensure_twin(kube::DynamicClient& member, const nlohmann::json& desired,
                   const std::string& host_id, const std::string& what,
                   std::span<const std::string_view> replaced = {});

// Deletes the object at `ref` on `member` when it is ours; nothing when absent or not ours.
// Returns whether it deleted.
Result<bool> remove_twin(kube::DynamicClient& member, const kube::ResourceRef& ref,
                         const std::string& host_id);

}  // namespace fed::offload
