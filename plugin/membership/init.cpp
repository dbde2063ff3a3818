#include "plugin/membership/init.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/connect/rest_config.hpp"
#include "plugin/host/host_install.hpp"
#include "plugin/manifests/apply.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

Runner wire_init(CLI::App& app) {
  auto options = std::make_shared<InitOptions>();
  auto dry_run = std::make_shared<std::string>("none");
  app.add_option("--cluster-id", options->cluster_id,
                 "This cluster's id in the federation, a DNS label (default: the context name, "
                 "lower-cased)");
  app.add_option("--pod-cidr", options->pod_cidr,
                 "The cluster's PodCIDR (default: the smallest network containing every node's "
                 "spec.podCIDR)");
  app.add_option("--service-cidr", options->service_cidr,
                 "The cluster's ServiceCIDR (default: the `kubernetes` ServiceCIDR object)");
  app.add_option("--image", options->image,
                 "The fed-agent image of the manager and the agent (default \"" +
                     std::string(kDefaultImage) + "\")");
  app.add_flag(
      "--direct-routing", options->direct_routing,
      "Route between a node and its gateway without VXLAN when they share a subnet (the node "
      "network must accept pod addresses: no cloud source/destination check)");
  app.add_option("--wireguard", options->wireguard,
                 "The gateway's WireGuard: auto (the kernel's where the node has the module, else "
                 "wireguard-go; default), kernel or wireguard-go");
  app.add_flag("--webhook-caller-auth", options->webhook_caller_auth,
               std::string(kWebhookCallerAuthHelp));
  app.add_option("--gateway-node", options->gateway_node,
                 "The node that terminates the tunnels (default: the labelled one, else the "
                 "first Ready node by name with an ExternalIP, else by name)");
  app.add_option("--gateway-address", options->gateway_address,
                 "The IPv4 address the other clusters' gateways reach the gateway node at "
                 "(annotation kubectl-fed.io/gateway-address; default: the node's ExternalIP, "
                 "else its InternalIP)");
  app.add_option("--etcd-image", options->etcd_image,
                 "The image of the host's federation etcd member, etcd 3.5 with "
                 "/usr/local/bin/etcd (default \"" +
                     std::string(kDefaultEtcdImage) + "\")");
  app.add_option("--dry-run", *dry_run,
                 "client: print the objects (with -o yaml|json) instead of applying them");
  return [options, dry_run](const GlobalOptions& global, Output& out) -> Status {
    FED_ASSIGN_OR_RETURN(options->dry_run, parse_dry_run(*dry_run));
    return run_init(global, *options, out);
  };
}

// The flag's CIDR, the one the cluster already recorded, or the discovered one.
struct Cidrs {
  SourcedCidr pods, services;
};

Result<Cidrs> resolve_cidrs(kube::DynamicClient& client, const InitOptions& options,
                            const std::optional<ClusterIdentity>& existing, const json& nodes) {
  Cidrs c;
  if (!options.pod_cidr.empty()) {
    FED_ASSIGN_OR_RETURN(c.pods.cidr, parse_cidr_flag(options.pod_cidr, "--pod-cidr"));
    c.pods.source = "--pod-cidr";
  } else if (existing && net::Cidr::parse(existing->pod_cidr)) {
    c.pods = {*net::Cidr::parse(existing->pod_cidr), "the recorded PodCIDR"};
  } else {
    FED_ASSIGN_OR_RETURN(c.pods.cidr, pod_cidr_from_nodes(nodes, "--pod-cidr"));
    c.pods.source = "the PodCIDR discovered from the nodes";
  }
  if (!options.service_cidr.empty()) {
    FED_ASSIGN_OR_RETURN(c.services.cidr, parse_cidr_flag(options.service_cidr, "--service-cidr"));
    c.services.source = "--service-cidr";
  } else if (existing && net::Cidr::parse(existing->service_cidr)) {
    c.services = {*net::Cidr::parse(existing->service_cidr), "the recorded ServiceCIDR"};
  } else {
    FED_ASSIGN_OR_RETURN(c.services.cidr, fetch_service_cidr(client, "--service-cidr"));
    c.services.source = "the ServiceCIDR of the kubernetes ServiceCIDR object";
  }
  FED_TRY(check_disjoint(c.pods, c.services));
  if (!options.pod_cidr.empty())
    FED_TRY(check_pod_cidr_covers_nodes(c.pods.cidr, nodes, "--pod-cidr"));
  return c;
}

}  // namespace

const Command kInitCommand{
    .name = "init",
    .summary = "Make the current cluster the host of a federation",
    .description =
        "Install the federation on the current cluster (--context) as its host: the "
        "federation CRDs, the kubectl-fed-system namespace, the federation ConfigMap (cluster "
        "id, role host, PodCIDR, ServiceCIDR), the host's federation etcd member on the "
        "gateway node with its certificates, the manager Deployment (two replicas electing "
        "a leader through that etcd) and the agent DaemonSet with their least-privilege RBAC, all "
        "by server-side apply (field manager kubectl-fed), "
        "and label the gateway node kubectl-fed.io/gateway=true. Flags are checked before "
        "anything is written; running init again changes nothing.",
    .usage =
        "init [--cluster-id ID] [--pod-cidr CIDR] [--service-cidr CIDR] [--image IMAGE] "
        "[--gateway-node NODE] [--gateway-address IP] [--dry-run=client] [flags]",
    .examples =
        "  # Make cluster c1 the host, discovering its PodCIDR and ServiceCIDR\n"
        "  kubectl fed init --context c1\n"
        "\n"
        "  # Print what would be applied, changing nothing\n"
        "  kubectl fed init --context c1 --dry-run=client -o yaml\n"
        "\n"
        "  # Explicit id, ranges and gateway\n"
        "  kubectl fed init --cluster-id eu-west --pod-cidr 10.241.0.0/16 "
        "--service-cidr 10.101.0.0/16 --gateway-node node1\n",
    .arg_values = {},
    .wire = wire_init,
};

Status validate_init_flags(const InitOptions& options) {
  if (!options.cluster_id.empty()) FED_TRY(validate_cluster_id(options.cluster_id, "--cluster-id"));
  std::optional<net::Cidr> pods, services;
  if (!options.pod_cidr.empty()) {
    FED_ASSIGN_OR_RETURN(pods, parse_cidr_flag(options.pod_cidr, "--pod-cidr"));
  }
  if (!options.service_cidr.empty()) {
    FED_ASSIGN_OR_RETURN(services, parse_cidr_flag(options.service_cidr, "--service-cidr"));
  }
  if (pods && services) {
    FED_TRY(check_disjoint({*pods, "--pod-cidr"}, {*services, "--service-cidr"}));
  }
  FED_TRY(validate_gateway_address(options.gateway_address));
  FED_TRY(validate_wireguard_flag(options.wireguard));
  if (options.image.empty()) {
    return fail(ErrorCode::Invalid,
                "--image must not be empty; e.g. --image " + std::string(kDefaultImage));
  }
  if (options.etcd_image.empty()) {
    return fail(ErrorCode::Invalid, "--etcd-image must not be empty; e.g. --etcd-image " +
                                        std::string(kDefaultEtcdImage));
  }
  return ok();
}

Status run_init(const GlobalOptions& global, const InitOptions& options, Output& out) {
  FED_TRY(validate_init_flags(options));
  FED_ASSIGN_OR_RETURN(auto config, rest_config_for(global));
  const std::string context = config.context_name;
  FED_ASSIGN_OR_RETURN(auto client, kube::DynamicClient::create(std::move(config)));

  out.progress("Reading the cluster's federation state...");
  FED_ASSIGN_OR_RETURN(auto existing, fetch_identity(*client));
  std::string id = options.cluster_id;
  if (existing && existing->role == FederationRole::Member) {
    return fail(ErrorCode::Invalid, "this cluster is member " + existing->cluster_id +
                                        " of federation " + existing->federation_id +
                                        "; unjoin it there (kubectl fed unjoin " +
                                        existing->cluster_id + ") before making it a host");
  }
  if (existing && !id.empty() && id != existing->cluster_id) {
    return fail(ErrorCode::Invalid, "this cluster is already the host " + existing->cluster_id +
                                        "; a cluster id is fixed: pass --cluster-id " +
                                        existing->cluster_id + " or leave it out");
  }
  if (id.empty()) id = existing ? existing->cluster_id : util::to_lower(context);
  if (!is_dns_label(id)) {
    return fail(ErrorCode::Invalid, "the context name \"" + context +
                                        "\" is not a DNS label usable as the cluster id; pass "
                                        "--cluster-id (e.g. --cluster-id c1)");
  }

  FED_ASSIGN_OR_RETURN(auto nodes, list_nodes(*client));
  FED_ASSIGN_OR_RETURN(auto cidrs, resolve_cidrs(*client, options, existing, nodes));
  FED_ASSIGN_OR_RETURN(auto gateway, pick_gateway_node(nodes, options.gateway_node));
  const ClusterIdentity identity{id, FederationRole::Host, cidrs.pods.cidr.str(),
                                 cidrs.services.cidr.str(), id};
  RenderOptions render;
  render.image = options.image;
  render.etcd_image = options.etcd_image;
  render.direct_routing = options.direct_routing;
  render.wireguard = options.wireguard;
  render.webhook_caller_auth = options.webhook_caller_auth;
  FED_ASSIGN_OR_RETURN(auto member, etcd_member_on(id, nodes, gateway, options.gateway_address));
  FED_ASSIGN_OR_RETURN(auto objects, host_objects(*client, identity, render, member,
                                                  EtcdBootstrap{id, "", ""}, std::nullopt));
  if (options.dry_run == DryRun::Client) {
    objects.push_back(federation_host(member));
    print_host_dry_run(out, objects);
    return ok();
  }

  out.progress("Applying " + std::to_string(objects.size()) + " objects to " + id + "...");
  FED_ASSIGN_OR_RETURN(auto applied, apply_objects(*client, objects, "cluster " + id));
  FED_ASSIGN_OR_RETURN(auto labelled,
                       label_gateway(*client, nodes, {gateway, options.gateway_address}));
  FED_ASSIGN_OR_RETURN(auto registered, register_host(*client, member, out));

  json result{
      {"clusterID", id},
      {"role", "host"},
      {"podCIDR", identity.pod_cidr},
      {"serviceCIDR", identity.service_cidr},
      {"gatewayNode", gateway},
      {"etcdMember",
       {{"name", member.name}, {"clientURL", client_url(member)}, {"peerURL", peer_url(member)}}},
      {"changed", any_change(applied) || labelled || registered},
      {"objects", json::array()}};
  for (const auto& a : applied) {
    result["objects"].push_back(
        {{"object", a.label}, {"result", std::string(to_string(a.outcome))}});
  }
  out.print(result, [&](std::ostream& os) {
    for (const auto& a : applied) os << a.label << " " << to_string(a.outcome) << "\n";
    os << "federationhost/" << member.name << (registered ? " configured" : " unchanged") << "\n";
    os << "node/" << gateway << (labelled ? " labelled " : " already labelled ") << kGatewayLabel
       << "=true\n";
    os << "cluster " << id << " is the host of federation " << id << " (PodCIDR "
       << identity.pod_cidr << ", ServiceCIDR " << identity.service_cidr << ", gateway " << gateway
       << ")\n";
    os << "federation etcd member " << member.name << " on " << gateway << ": clients "
       << client_url(member) << ", peers " << peer_url(member) << "\n";
  });
  return ok();
}

}  // namespace fed::plugin
