#include "plugin/cli/server_version.hpp"

#include "shared/kube/rest_client.hpp"

namespace fed::plugin {

Result<ServerVersion> fetch_server_version(const kube::RestConfig& config) {
  kube::RestClientOptions options;
  options.max_retries = 1;  // a version probe should answer quickly, not back off for minutes
  FED_ASSIGN_OR_RETURN(auto client, kube::RestClient::create(config, options));
  FED_ASSIGN_OR_RETURN(const std::string body, client->get_raw("/version"));
  ServerVersion out;
  out.info = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!out.info.is_object() || !out.info.contains("gitVersion") ||
      !out.info["gitVersion"].is_string()) {
    return fail(ErrorCode::Internal, "GET /version on " + client->server_label() +
                                         ": the answer is not a Kubernetes version object");
  }
  out.git_version = out.info["gitVersion"].get<std::string>();
  return out;
}

}  // namespace fed::plugin
