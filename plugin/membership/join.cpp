#include "plugin/membership/join.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <thread>

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/connect/commit_wait.hpp"
#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/rest_config.hpp"
#include "plugin/manifests/apply.hpp"
#include "plugin/membership/join_plan.hpp"
#include "plugin/membership/join_wait.hpp"
#include "plugin/membership/member_api_endpoint.hpp"
#include "plugin/membership/path_proof.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/peering.hpp"
#include "shared/util/base64.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

constexpr std::string_view kTokenSecret = "fed-federation-token";

Runner wire_join(CLI::App& app) {
  auto o = std::make_shared<JoinOptions>();
  auto dry_run = std::make_shared<std::string>("none");
  auto timeout = std::make_shared<std::string>("5m");
  app.add_option("member", o->member, "The member's name and cluster id (a DNS label)");
  app.add_option("--member-context", o->member_flags.context,
                 "The member's context in your kubeconfig (its admin credentials)");
  app.add_option("--member-kubeconfig", o->member_flags.kubeconfig,
                 "A kubeconfig file for the member (its current context unless --member-context)");
  app.add_option("--cluster-labels", o->cluster_labels,
                 "Labels the member exports, k=v pairs separated by commas");
  app.add_option("--share-cpu", o->share_cpu, "CPU the member offers the federation, e.g. 4");
  app.add_option("--share-memory", o->share_memory,
                 "Memory the member offers the federation, e.g. 8Gi");
  app.add_option("--namespace-quota", o->namespace_quota,
                 "Replica namespaces the federation may create on the member (0: no cap; "
                 "default 20); each replica's ResourceQuota is --share-cpu/--share-memory");
  app.add_option("--member-api-endpoint", o->member_api_endpoint,
                 "The member's API server URL as the host's pods reach it (default: the member "
                 "kubeconfig's server, or when that is loopback the address the member's API "
                 "server advertises: EndpointSlice default/kubernetes)");
  app.add_option("--gateway-node", o->gateway_node,
                 "The member's node that terminates the tunnels (default: the labelled one, else "
                 "the first Ready node by name with an ExternalIP, else by name)");
  app.add_option("--gateway-address", o->gateway_address,
                 "The IPv4 address the other clusters' gateways reach the member's gateway node "
                 "at (annotation kubectl-fed.io/gateway-address; default: the node's ExternalIP, "
                 "else its InternalIP)");
  app.add_option("--image", o->image, "The fed-agent image of the member's agent");
  app.add_flag(
      "--direct-routing", o->direct_routing,
      "Route between a node and its gateway without VXLAN when they share a subnet (the node "
      "network must accept pod addresses: no cloud source/destination check)");
  app.add_flag("--webhook-caller-auth", o->webhook_caller_auth,
               std::string(kWebhookCallerAuthHelp) + " (the member's tenancy webhook)");
  app.add_option("--tunnel-backend", o->tunnel_backend,
                 "The tunnel between the host's and the member's gateways: wireguard "
                 "(encrypted, default) or vxlan (unencrypted, UDP 4789; for networks that are "
                 "already private)");
  app.add_option("--wireguard", o->wireguard,
                 "The gateway's WireGuard: auto (the kernel's where the node has the module, else "
                 "wireguard-go; default), kernel or wireguard-go");
  app.add_flag("--wait", o->wait, "Wait until the member is Ready (see --timeout)");
  app.add_option("--timeout", *timeout,
                 "How long --wait and the member's token may take (default 5m)");
  app.add_option("--dry-run", *dry_run,
                 "client: print the objects (with -o yaml|json) instead of writing them");
  return [o, dry_run, timeout](const GlobalOptions& global, Output& out) -> Status {
    FED_ASSIGN_OR_RETURN(o->dry_run, parse_dry_run(*dry_run));
    FED_ASSIGN_OR_RETURN(o->timeout, parse_timeout_flag(*timeout, "--timeout"));
    return run_join(global, *o, out);
  };
}

// The member's token and CA from its fed-federation-token Secret, once the token controller
// has filled it in.
struct MemberToken {
  std::string token, ca_pem;
};

Result<MemberToken> wait_for_token(kube::DynamicClient& member, const std::string& name,
                                   std::chrono::milliseconds timeout, Output& out) {
  const kube::ResourceRef ref{
      {"", "v1", "secrets"}, std::string(fedapi::kNamespace), std::string(kTokenSecret), ""};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool told = false;
  while (true) {
    auto secret = member.get(ref);
    if (!secret && !secret.error().is_not_found()) {
      return fail(secret.error().code(), "member " + name + ": reading Secret " +
                                             std::string(kTokenSecret) + ": " +
                                             secret.error().to_error().message());
    }
    if (secret) {
      const json data = secret->value("data", json::object());
      if (data.contains("token")) {
        MemberToken t;
        auto token = util::base64_decode(data["token"].get<std::string>());
        if (token) t.token = *token;
        if (data.contains("ca.crt")) {
          auto ca = util::base64_decode(data["ca.crt"].get<std::string>());
          if (ca) t.ca_pem = *ca;
        }
        if (!t.token.empty()) return t;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    if (!told) out.progress("waiting for the token of fed-federation on " + name + "...");
    told = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return fail(ErrorCode::Unavailable,
              "member " + name + ": Secret " + std::string(fedapi::kNamespace) + "/" +
                  std::string(kTokenSecret) +
                  " has no token yet; is kube-controller-manager running there?");
}

json result_doc(const JoinOptions& o, const std::string& federation, const std::string& host_id,
                std::string_view result, const std::vector<AppliedObject>& member_side,
                const std::vector<AppliedObject>& host_side) {
  json doc{{"member", o.member},
           {"federation", federation},
           {"result", result},
           {"objects", json::array()}};
  for (const auto* side : {&member_side, &host_side}) {
    for (const auto& a : *side) {
      doc["objects"].push_back({{"cluster", side == &member_side ? o.member : host_id},
                                {"object", a.label},
                                {"result", std::string(to_string(a.outcome))}});
    }
  }
  return doc;
}

}  // namespace

const Command kJoinCommand{
    .name = "join",
    .summary = "Join a member cluster to the federation of the current (host) cluster",
    .description =
        "Join MEMBER to the federation whose host is the current context. On the member, with "
        "your credentials (--member-context or --member-kubeconfig): the Peering, NatMapping "
        "and IpamState CRDs, the kubectl-fed-system namespace, the federation ConfigMap (role "
        "member), the agent DaemonSet, the federation's identity — ServiceAccount "
        "fed-federation with a token and least-privilege RBAC — and the provider's tenancy "
        "(Deployment fed-tenancy): at most --namespace-quota replica namespaces, each with a "
        "ResourceQuota of the offered CPU and memory, a LimitRange and an isolating "
        "NetworkPolicy. On the host: the credential "
        "Secret member-MEMBER and the FederatedCluster MEMBER, which the manager peers. A "
        "member of another federation is refused; joining again with the same flags changes "
        "nothing and says \"already joined\".",
    .usage =
        "join MEMBER --member-context CTX | --member-kubeconfig FILE [--cluster-labels k=v,..] "
        "[--share-cpu N] [--share-memory Q] [--namespace-quota N] [--member-api-endpoint URL] "
        "[--gateway-node NODE] "
        "[--gateway-address IP] [--wait] "
        "[--timeout D] [--dry-run=client] [flags]",
    .examples =
        "  # Join c3 to the federation hosted by c1\n"
        "  kubectl fed join c3 --context c1 --member-context c3\n"
        "\n"
        "  # With labels and offered resources, waiting until the tunnel is up\n"
        "  kubectl fed join c3 --context c1 --member-kubeconfig c3.kubeconfig \\\n"
        "      --cluster-labels region=eu-west --share-cpu 4 --share-memory 8Gi --wait -o json\n"
        "\n"
        "  # What would be written, changing nothing\n"
        "  kubectl fed join c3 --context c1 --member-context c3 --dry-run=client -o yaml\n",
    .arg_values = {},
    .wire = wire_join,
};

Status validate_join_flags(const JoinOptions& o) {
  if (o.member.empty()) {
    return fail(ErrorCode::Invalid,
                "join needs the MEMBER name, e.g. kubectl fed join c3 "
                "--member-context c3");
  }
  FED_TRY(validate_cluster_id(o.member, "MEMBER"));
  if (o.member_flags.context.empty() && o.member_flags.kubeconfig.empty()) {
    return fail(ErrorCode::Invalid, "say how to reach member " + o.member +
                                        ": --member-context CONTEXT or --member-kubeconfig FILE");
  }
  FED_TRY(parse_cluster_labels(o.cluster_labels));
  FED_TRY(validate_share(o.share_cpu, "--share-cpu"));
  FED_TRY(validate_share(o.share_memory, "--share-memory"));
  if (o.namespace_quota < 0) {
    return fail(ErrorCode::Invalid, "--namespace-quota must be 0 (no cap) or more, not " +
                                        std::to_string(o.namespace_quota));
  }
  FED_TRY(validate_api_endpoint(o.member_api_endpoint));
  FED_TRY(validate_gateway_address(o.gateway_address));
  if (o.image.empty()) return fail(ErrorCode::Invalid, "--image must not be empty");
  FED_TRY(validate_wireguard_flag(o.wireguard));
  if (!fedapi::tunnel_backend_named(o.tunnel_backend)) {
    return fail(ErrorCode::Invalid,
                "--tunnel-backend must be wireguard (encrypted, the default) or vxlan "
                "(unencrypted), not \"" +
                    o.tunnel_backend + "\"");
  }
  return ok();
}

Status run_join(const GlobalOptions& global, const JoinOptions& o, Output& out) {
  FED_TRY(validate_join_flags(o));
  FED_ASSIGN_OR_RETURN(auto labels, parse_cluster_labels(o.cluster_labels));

  // The host: initialised, the federation's leader's (docs/HA.md), and not the member itself.
  FED_ASSIGN_OR_RETURN(auto leader, connect_leader_host(global, out.err()));
  auto host = leader.client;
  const std::string host_id = leader.cluster_id;
  // With several hosts the federation is named after its first one, which members record.
  const std::string federation = leader.federation_id;
  if (o.member == host_id) {
    return fail(ErrorCode::Invalid, "MEMBER " + o.member +
                                        " is the host's own cluster id; "
                                        "give the member another name");
  }

  // The member: reachable, and free to join.
  FED_ASSIGN_OR_RETURN(auto member, connect_member(global, o.member_flags, o.member, ""));
  FED_ASSIGN_OR_RETURN(auto member_identity, fetch_identity(*member.client));
  FED_TRY(check_member_identity(member_identity, o.member, federation));
  {
    auto joined = host->get(fedapi::ref(fedapi::kFederatedCluster, o.member));
    if (!joined && !joined.error().is_not_found()) {
      return fail(joined.error().code(), "reading federatedcluster/" + o.member + " on the host: " +
                                             joined.error().to_error().message());
    }
    FED_TRY(check_not_retargeted(joined.has_value(), member_identity, o.member, federation));
  }
  FED_ASSIGN_OR_RETURN(auto nodes, list_nodes(*member.client));
  std::string pod_cidr, service_cidr;
  if (member_identity) {
    pod_cidr = member_identity->pod_cidr;
    service_cidr = member_identity->service_cidr;
  } else {
    FED_ASSIGN_OR_RETURN(auto pods,
                         pod_cidr_from_nodes(nodes, "a PodCIDR: set the nodes' spec.podCIDR"));
    FED_ASSIGN_OR_RETURN(auto services,
                         fetch_service_cidr(*member.client, "a ServiceCIDR object on the member"));
    FED_TRY(check_disjoint({pods, "the member's PodCIDR"}, {services, "its ServiceCIDR"}));
    pod_cidr = pods.str();
    service_cidr = services.str();
  }
  FED_ASSIGN_OR_RETURN(auto gateway, pick_gateway_node(nodes, o.gateway_node));
  const ClusterIdentity identity{o.member, FederationRole::Member, pod_cidr, service_cidr,
                                 federation};
  const RenderOptions render{
      o.image,
      std::string(fedapi::kNamespace),
      TenancySettings{o.namespace_quota, o.share_cpu, o.share_memory, pod_cidr},
      o.direct_routing,
      o.wireguard,
      std::string(kDefaultEtcdImage),
      o.webhook_caller_auth};
  FED_ASSIGN_OR_RETURN(auto member_objects, render_member(identity, render));

  FED_ASSIGN_OR_RETURN(
      auto endpoint,
      choose_member_api_endpoint(o.member, o.member_api_endpoint, member.config.server,
                                 [&] { return kube::advertised_api_address(*member.client); }));
  if (!endpoint.note.empty()) out.err() << o.member << ": " << endpoint.note << "\n";
  MemberSpec spec{o.member, endpoint.url, labels, o.share_cpu, o.share_memory, o.tunnel_backend};
  const json fc = federated_cluster(spec);
  if (o.dry_run == DryRun::Client) {
    std::vector<json> all = member_objects;
    all.push_back(credential_secret(o.member, ""));
    all.push_back(fc);
    out.print(object_list(all), [&](std::ostream& os) {
      for (const auto& obj : member_objects)
        os << o.member << ": " << object_label(obj) << " (dry run)\n";
      os << host_id << ": secret/" << credential_secret_name(o.member) << " (dry run)\n";
      os << host_id << ": " << object_label(fc) << " (dry run)\n";
    });
    return ok();
  }

  // Member side first: the federation's identity must exist before the host can hold it.
  out.progress("Installing the member side on " + o.member + "...");
  FED_ASSIGN_OR_RETURN(auto member_side,
                       apply_objects(*member.client, member_objects, "member " + o.member));
  FED_ASSIGN_OR_RETURN(auto labelled,
                       label_gateway(*member.client, nodes, {gateway, o.gateway_address}));
  FED_ASSIGN_OR_RETURN(auto token, wait_for_token(*member.client, o.member, o.timeout, out));
  // The CA the user's kubeconfig trusts for the member, else the cluster CA of the token.
  const std::string ca = member.config.ca_pem.empty() ? token.ca_pem : member.config.ca_pem;
  const json secret = credential_secret(
      o.member, credential_kubeconfig(o.member, spec.api_endpoint, member.config, ca, token.token));

  // Host side: compare, then write only what differs.
  out.progress("Registering " + o.member + " on the host " + host_id + "...");
  std::vector<AppliedObject> host_side;
  FED_ASSIGN_OR_RETURN(auto live_secret, get_live(*host, secret));
  host_side.push_back({object_label(secret), plan_outcome(live_secret, secret)});
  FED_ASSIGN_OR_RETURN(auto live_fc, get_live(*host, fc));
  host_side.push_back({object_label(fc), plan_federated_cluster(live_fc, fc)});
  if (host_side[0].outcome != ApplyOutcome::Unchanged) {
    FED_TRY(write_object(*host, secret, "host " + host_id));
  }
  std::int64_t written_generation = 0;
  if (host_side[1].outcome != ApplyOutcome::Unchanged) {
    FED_ASSIGN_OR_RETURN(auto written, write_object(*host, fc, "host " + host_id));
    // The manager's reports name the generation they judged: only those on this spec count.
    written_generation = written["metadata"].value("generation", std::int64_t{0});
  }
  // Joined only once the federation etcd holds it: a new leader then knows the member.
  if (host_side[0].outcome != ApplyOutcome::Unchanged) {
    FED_TRY(wait_committed(leader, credential_secret_ref(o.member), out));
  }
  if (host_side[1].outcome != ApplyOutcome::Unchanged) {
    FED_TRY(wait_committed(leader, fedapi::ref(fedapi::kFederatedCluster, o.member), out));
  }

  const bool noop = already_joined(member_side, host_side, labelled);
  const std::string_view result = noop ? "alreadyJoined" : live_fc ? "updated" : "joined";
  json doc = result_doc(o, federation, host_id, result, member_side, host_side);
  doc["gatewayNode"] = gateway;
  if (o.wait) {
    const auto started = std::chrono::steady_clock::now();
    FED_ASSIGN_OR_RETURN(
        auto ready, wait_until_ready(global, leader, o.member, o.timeout, out, written_generation));
    doc["ready"] = true;
    doc["status"] = ready.value("status", json::object());
    // The leader may have moved while it waited: the member is peered with the new one's host.
    doc["readyOnHost"] = leader.cluster_id;
    host = leader.client;
    FED_ASSIGN_OR_RETURN(auto peering, host->get(fedapi::ref(fedapi::kPeering, o.member)));
    const auto left = o.timeout - std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::steady_clock::now() - started);
    FED_ASSIGN_OR_RETURN(
        doc["dataPath"],
        prove_data_path({*host, *member.client, leader.cluster_id, o.member, o.image}, peering,
                        std::max(left, std::chrono::milliseconds(std::chrono::seconds(30))), out));
  }
  out.print(doc, [&](std::ostream& os) {
    if (noop) {
      os << "member " << o.member << " already joined federation " << host_id
         << "; nothing changed\n";
    } else {
      for (const auto& a : member_side)
        os << o.member << ": " << a.label << " " << to_string(a.outcome) << "\n";
      for (const auto& a : host_side)
        os << host_id << ": " << a.label << " " << to_string(a.outcome) << "\n";
      os << "member " << o.member << (live_fc ? " updated in" : " joined") << " federation "
         << host_id << "\n";
    }
    if (o.wait) {
      const json& path = doc["dataPath"];
      os << "member " << o.member << " is Ready: TCP from " << o.member << "/"
         << path["dialler"].value("node", "") << " reached " << host_id << "/"
         << path["listener"].value("node", "") << " at " << path.value("dialledAddress", "")
         << ", seen from " << path.value("sourceSeen", "") << "\n";
    }
  });
  return ok();
}

}  // namespace fed::plugin
