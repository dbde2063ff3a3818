#pragma once
// The addresses of a Node the federation uses: where other clusters reach its gateway, and
// where pods of its own cluster reach a node-local service (the federation etcd member). Pure.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::fedapi {

// The node's first IPv4 status address of `type` (InternalIP, ExternalIP); none without one.
std::optional<std::string> node_ipv4(const nlohmann::json& node, std::string_view type);

// The address peers reach a gateway node at: its kubectl-fed.io/gateway-address annotation,
// else its first ExternalIP, else its InternalIP. Invalid when none is usable.
Result<std::string> gateway_address(const nlohmann::json& node);

}  // namespace fed::fedapi
