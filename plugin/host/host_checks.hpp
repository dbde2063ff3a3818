#pragma once
// Checks `host add` and `host remove` make before writing anything (docs/HA.md).

#include <string>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// The status of the object's Ready condition: "True", "False", or "Unknown" without one.
std::string ready_status(const nlohmann::json& object);

// Removing host `name` from the FederationHost list `hosts` must leave a host and a quorum of
// healthy (Ready) members among the others. NotFound when there is no such host. Pure.
Status check_removal_keeps_quorum(const nlohmann::json& hosts, const std::string& name);

}  // namespace fed::plugin
