#pragma once
// The API server's version, from GET /version through the shared REST client.

#include <string>

#include <nlohmann/json.hpp>

#include "shared/kube/rest_config.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

struct ServerVersion {
  std::string git_version;  // "v1.29.2"
  nlohmann::json info;      // the whole /version object (major, minor, platform, ...)
};

// Asks the server in `config` for its version, with one retry. Errors keep the REST client's
// code and message (Unavailable names the server; Permission says who was refused).
Result<ServerVersion> fetch_server_version(const kube::RestConfig& config);

}  // namespace fed::plugin
