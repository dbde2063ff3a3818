#include "plugin/host/host_install.hpp"

#include <ostream>

#include "plugin/connect/poll.hpp"
#include "plugin/manifests/apply.hpp"
#include "shared/fedapi/node_address.hpp"

namespace fed::plugin {

using nlohmann::json;

Result<EtcdMember> etcd_member_on(const std::string& id, const json& node_list,
                                  const std::string& gateway, const std::string& gateway_flag) {
  for (const auto& node : node_list.value("items", json::array())) {
    if (node["metadata"].value("name", "") != gateway) continue;
    auto internal = fedapi::node_ipv4(node, "InternalIP");
    if (!internal) {
      return fail(ErrorCode::Invalid, "gateway node " + gateway +
                                          " has no IPv4 InternalIP for the federation etcd "
                                          "member; choose another with --gateway-node");
    }
    std::string peer = gateway_flag;
    if (peer.empty()) {
      FED_ASSIGN_OR_RETURN(peer, fedapi::gateway_address(node));
    }
    return EtcdMember{id, *internal, peer};
  }
  return fail(ErrorCode::NotFound, "gateway node " + gateway + " not found");
}

Result<EtcdSecretsFound> find_etcd_secrets(kube::DynamicClient& client, const std::string& ns) {
  auto find = [&](std::string_view name) {
    return get_live(client, json{{"apiVersion", "v1"},
                                 {"kind", "Secret"},
                                 {"metadata", {{"name", std::string(name)}, {"namespace", ns}}}});
  };
  EtcdSecretsFound found;
  FED_ASSIGN_OR_RETURN(found.ca, find(kEtcdCaSecret));
  FED_ASSIGN_OR_RETURN(found.member, find(kEtcdMemberSecret));
  FED_ASSIGN_OR_RETURN(found.manager_client, find(kManagerEtcdClientSecret));
  return found;
}

Result<std::vector<json>> host_objects(kube::DynamicClient& client, const ClusterIdentity& identity,
                                       const RenderOptions& render, const EtcdMember& member,
                                       const EtcdBootstrap& bootstrap,
                                       const std::optional<json>& federation_ca) {
  FED_ASSIGN_OR_RETURN(auto objects, render_host(identity, render));
  FED_ASSIGN_OR_RETURN(auto found, find_etcd_secrets(client, render.namespace_name));
  if (federation_ca) found.ca = federation_ca;
  FED_TRY(add_federation_etcd(objects, member, found, bootstrap, render.namespace_name));
  return objects;
}

void print_host_dry_run(Output& out, const std::vector<json>& objects) {
  std::vector<json> shown;
  for (const auto& o : objects) shown.push_back(redact_secret_data(o));
  out.print(object_list(shown), [&](std::ostream& os) {
    for (const auto& o : shown) os << object_label(o) << " (dry run)\n";
  });
}

Result<bool> register_host(kube::DynamicClient& client, const EtcdMember& member, Output& out) {
  using namespace std::chrono_literals;
  const json host = federation_host(member);
  std::vector<AppliedObject> applied;
  FED_TRY(poll_until(
      [&]() -> PollResult {
        auto r = apply_objects(client, {host}, "cluster " + member.name);
        if (r) {
          applied = std::move(*r);
          return poll_done();
        }
        // A CRD created a moment ago is served once it is Established.
        if (r.error().code() == ErrorCode::NotFound) return still_waiting(r.error().message());
        return Unexpected(std::move(r).error());
      },
      30s, "the FederationHost kind to be served", "FederationHost " + member.name + " not written",
      out));
  return any_change(applied);
}

}  // namespace fed::plugin
