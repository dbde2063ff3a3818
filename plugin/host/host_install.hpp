#pragma once
// What a host cluster gets installed, shared by `init` (the first host) and `host add` (the
// others): the manifests for role host, plus its federation etcd member — its certificates
// (from the federation's etcd CA) and its flags.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/cli/output.hpp"
#include "plugin/host/federation_etcd.hpp"
#include "plugin/manifests/render.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// The member of host `id` on its gateway node: the node's InternalIP for the host's managers,
// `gateway_flag` (else the node's gateway address) for the other hosts. Invalid or NotFound,
// naming the node and the fix.
Result<EtcdMember> etcd_member_on(const std::string& id, const nlohmann::json& node_list,
                                  const std::string& gateway, const std::string& gateway_flag);

// The federation etcd Secrets `client`'s cluster already holds (a second run keeps them).
Result<EtcdSecretsFound> find_etcd_secrets(kube::DynamicClient& client, const std::string& ns);

// The objects of a host: render_host's, the member's flags and Secrets. `federation_ca`, when
// set, is the federation's CA Secret from another host (host add), which every member must
// share; else the cluster's own (init).
Result<std::vector<nlohmann::json>> host_objects(
    kube::DynamicClient& client, const ClusterIdentity& identity, const RenderOptions& render,
    const EtcdMember& member, const EtcdBootstrap& bootstrap,
    const std::optional<nlohmann::json>& federation_ca);

// A dry run of host objects: the list (-o yaml|json) or "kind/name (dry run)" lines, Secret
// values redacted.
void print_host_dry_run(Output& out, const std::vector<nlohmann::json>& objects);

// Applies the FederationHost of `member` on `client`'s cluster, retrying while its CRD, just
// created, is not served yet. True when it was created or changed.
Result<bool> register_host(kube::DynamicClient& client, const EtcdMember& member, Output& out);

}  // namespace fed::plugin
