#pragma once
// join --wait: polls the member's FederatedCluster until its Ready condition is True or the
// timeout passes; progress lines on stderr (a terminal only); on timeout an Unavailable error
// names the condition that is not True and its message.

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin/cli/output.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// The FederatedCluster once Ready.
Result<nlohmann::json> wait_until_ready(kube::DynamicClient& host, const std::string& member,
                                        std::chrono::milliseconds timeout, Output& out);

}  // namespace fed::plugin
