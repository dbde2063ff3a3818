#pragma once
// Small edits every federation controller makes to API objects: finalizers on and off, and
// deletes that treat "already gone" as done.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::kube {

bool has_finalizer(const nlohmann::json& object, std::string_view finalizer);

// Adds or removes `finalizer` on the object at `ref` (a merge patch conditional on `object`'s
// resourceVersion). An object already gone is not an error.
Status set_finalizer(DynamicClient& client, const ResourceRef& ref, const nlohmann::json& object,
                     std::string_view finalizer, bool present);

// Sets the Ready condition (with `object`'s generation) and the other `fields` of the status of
// the object at `ref`, by a merge patch (null fields removed) sent only when it changes
// something. An object already gone is not an error.
Status patch_ready_status(DynamicClient& client, const ResourceRef& ref,
                          const nlohmann::json& object, nlohmann::json fields, bool ready,
                          const std::string& reason, const std::string& message);

// Replaces the whole status of the object at `ref` with `status`, starting from `object` (the
// caller's cached copy). A controller's cache is often one write behind — its own — so on a
// Conflict the object is read again and the write repeated, up to three times, rather than
// waiting for a requeue. For statuses with one writer only: a concurrent writer's changes are
// overwritten. Returns the object as written; NotFound when it is gone.
ApiResult<nlohmann::json> replace_status(DynamicClient& client, const ResourceRef& ref,
                                         const nlohmann::json& object,
                                         const nlohmann::json& status);

// Deletes `ref`, treating "already gone" as done.
Status remove_if_present(DynamicClient& client, const ResourceRef& ref);

// Deletes every object of `collection` that `label_selector` selects, one delete each (no
// deletecollection right needed), treating "already gone" as done.
Status remove_selected(DynamicClient& client, const ResourceRef& collection,
                       const std::string& label_selector);

}  // namespace fed::kube
