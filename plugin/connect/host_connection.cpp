#include "plugin/connect/host_connection.hpp"

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/connect/rest_config.hpp"

namespace fed::plugin {

Result<HostConnection> connect_host(const GlobalOptions& global) {
  FED_ASSIGN_OR_RETURN(auto config, rest_config_for(global));
  FED_ASSIGN_OR_RETURN(auto client, kube::DynamicClient::create(std::move(config)));
  FED_ASSIGN_OR_RETURN(auto identity, fetch_identity(*client));
  if (!identity || identity->role != FederationRole::Host) {
    return fail(ErrorCode::NotFound,
                "the current cluster is not a federation host: run kubectl fed init there first, "
                "or pass the host's --context");
  }
  std::string federation =
      identity->federation_id.empty() ? identity->cluster_id : identity->federation_id;
  return HostConnection{std::move(client), identity->cluster_id, std::move(federation),
                        std::nullopt};
}

Result<std::string> command_namespace(const GlobalOptions& global) {
  if (!global.namespace_name.empty()) return global.namespace_name;
  FED_ASSIGN_OR_RETURN(auto config, rest_config_for(global));
  return config.default_namespace;
}

}  // namespace fed::plugin
