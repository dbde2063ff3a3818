#pragma once
// Writing the rendered objects: compare each with what the cluster holds and server-side apply
// (field manager kubectl-fed) only those that differ, so that a repeated init or join leaves
// every resourceVersion unchanged. The comparison is pure and tested on its own.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// What happened to one object.
enum class ApplyOutcome { Created, Configured, Unchanged };

// "created" / "configured" / "unchanged", as kubectl apply prints.
std::string_view to_string(ApplyOutcome outcome);

struct AppliedObject {
  std::string label;  // object_label()
  ApplyOutcome outcome = ApplyOutcome::Unchanged;
};

// Whether `live` already holds everything `desired` says: every field of desired is in live
// with the same value (objects recursively, arrays element by element with equal lengths);
// of metadata only name, namespace, labels and annotations count. Fields the server adds
// (defaults, status, managedFields) do not matter.
bool covers(const nlohmann::json& live, const nlohmann::json& desired);

// The decision for one object: nullopt when `live` is absent (create), else whether it needs a
// write.
ApplyOutcome plan_outcome(const std::optional<nlohmann::json>& live, const nlohmann::json& desired);

// The address of an object of the kinds kubectl-fed writes (core, apps, rbac, CRDs, the
// federation's kinds) without a discovery round trip; other kinds go through discovery.
kube::ApiResult<kube::ResourceRef> ref_of(kube::DynamicClient& client,
                                          const nlohmann::json& object);

// The object as the cluster holds it, or nullopt when it does not exist.
Result<std::optional<nlohmann::json>> get_live(kube::DynamicClient& client,
                                               const nlohmann::json& object);

// Reads each object and applies those that differ, in order. Errors name the object and the
// cluster (`where`, e.g. "host c1").
Result<std::vector<AppliedObject>> apply_objects(kube::DynamicClient& client,
                                                 const std::vector<nlohmann::json>& objects,
                                                 const std::string& where);

// Only reads: what apply_objects would do.
Result<std::vector<AppliedObject>> plan_objects(kube::DynamicClient& client,
                                                const std::vector<nlohmann::json>& objects,
                                                const std::string& where);

// Server-side applies one object (field manager kubectl-fed, taking over conflicting fields);
// the object as the API server returned it.
Result<nlohmann::json> write_object(kube::DynamicClient& client, const nlohmann::json& object,
                                    const std::string& where);

// Whether any object would be or was written.
bool any_change(const std::vector<AppliedObject>& applied);

}  // namespace fed::plugin
