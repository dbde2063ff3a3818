// kubectl fed host add (docs/HA.md): checks, registers the host with the leading manager (a
// FederationHost on the leader's host, which adds the new etcd member as a learner), installs
// the host objects with the member's --initial-cluster, and waits for its promotion.

#include <ostream>

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/connect/commit_wait.hpp"
#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/poll.hpp"
#include "plugin/host/host.hpp"
#include "plugin/host/host_checks.hpp"
#include "plugin/host/host_install.hpp"
#include "plugin/manifests/apply.hpp"
#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/group.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

// The new cluster may be a host of this federation already (a second run), nothing else.
Status check_new_host(const std::optional<ClusterIdentity>& identity, const std::string& name,
                      const std::string& federation) {
  if (!identity) return ok();
  if (identity->role == FederationRole::Member) {
    return fail(ErrorCode::Invalid, "cluster " + name + " is member " + identity->cluster_id +
                                        " of federation " + identity->federation_id +
                                        "; unjoin it there before making it a host");
  }
  if (identity->federation_id != federation) {
    return fail(ErrorCode::Invalid, "cluster " + name + " is a host of federation " +
                                        identity->federation_id + ", not of " + federation +
                                        "; a cluster hosts one federation");
  }
  if (identity->cluster_id != name) {
    return fail(ErrorCode::Invalid, "that cluster is already host " + identity->cluster_id +
                                        " of federation " + federation + ", not " + name);
  }
  return ok();
}

// The same API server behind both contexts: the kube-system namespace's uid says so.
Result<std::string> cluster_uid(kube::DynamicClient& client) {
  auto ns = client.get(kube::ResourceRef{{"", "v1", "namespaces"}, "", "kube-system", ""});
  if (!ns) return ns.error().to_error();
  return (*ns)["metadata"].value("uid", "");
}

}  // namespace

Status run_host_add(const GlobalOptions& global, const HostOptions& o, Output& out) {
  // The leader's host: its manager is the one that acts on FederationHosts.
  FED_ASSIGN_OR_RETURN(auto first, connect_leader_host(global, out.err()));
  const std::string& federation = first.federation_id;
  if (o.name == first.cluster_id) {
    return fail(ErrorCode::Invalid, o.name + " is the host of --context already");
  }
  if (auto member = first.client->get(fedapi::ref(fedapi::kFederatedCluster, o.name))) {
    return fail(ErrorCode::Invalid, o.name +
                                        " is a member of this federation; unjoin it (kubectl "
                                        "fed unjoin " +
                                        o.name + ") before making it a host");
  }

  FED_ASSIGN_OR_RETURN(auto added, connect_member(global, o.host_flags, o.name, ""));
  FED_ASSIGN_OR_RETURN(auto first_uid, cluster_uid(*first.client));
  FED_ASSIGN_OR_RETURN(auto added_uid, cluster_uid(*added.client));
  if (first_uid == added_uid) {
    return fail(ErrorCode::Invalid, "--host-context reaches the same cluster as --context (" +
                                        first.cluster_id + "): a host cannot be added twice");
  }
  FED_ASSIGN_OR_RETURN(auto identity, fetch_identity(*added.client));
  FED_TRY(check_new_host(identity, o.name, federation));
  FED_ASSIGN_OR_RETURN(auto ca, find_etcd_secrets(*first.client, std::string(fedapi::kNamespace)));
  if (!ca.ca) {
    return fail(ErrorCode::NotFound, "host " + first.cluster_id +
                                         " has no federation etcd CA (Secret fed-etcd-ca): run "
                                         "kubectl fed init --context " +
                                         first.cluster_id + " with this kubectl-fed first");
  }

  FED_ASSIGN_OR_RETURN(auto nodes, list_nodes(*added.client));
  FED_ASSIGN_OR_RETURN(auto pods,
                       pod_cidr_from_nodes(nodes, "a PodCIDR: set the nodes' spec.podCIDR"));
  FED_ASSIGN_OR_RETURN(auto services, fetch_service_cidr(*added.client, "a ServiceCIDR object"));
  FED_TRY(check_disjoint({pods, "the host's PodCIDR"}, {services, "its ServiceCIDR"}));
  FED_ASSIGN_OR_RETURN(auto gateway, pick_gateway_node(nodes, o.gateway_node));
  FED_ASSIGN_OR_RETURN(auto member, etcd_member_on(o.name, nodes, gateway, o.gateway_address));
  const ClusterIdentity host_identity{o.name, FederationRole::Host, pods.str(), services.str(),
                                      federation};
  RenderOptions render;
  render.image = o.image;
  render.etcd_image = o.etcd_image;
  render.webhook_caller_auth = o.webhook_caller_auth;

  if (o.dry_run == DryRun::Client) {
    FED_ASSIGN_OR_RETURN(
        auto objects,
        host_objects(
            *added.client, host_identity, render, member,
            EtcdBootstrap{federation, "<the members, once the leader added " + o.name + ">",
                          "<its member id>"},
            ca.ca));
    objects.insert(objects.begin(), federation_host(member));
    print_host_dry_run(out, objects);
    return ok();
  }

  out.progress("Registering host " + o.name + " with the leading manager on " + first.cluster_id +
               "...");
  FED_TRY(register_host(*first.client, member, out));
  const auto ref = fedapi::ref(fedapi::kFederationHost, o.name);
  FED_TRY(wait_committed(first, ref, out));
  // The FederationHost as the leading manager reports it, read into `report` on the leader's
  // host. Leadership can move meanwhile (a member added to the federation etcd can cost a
  // loaded etcd leader its term, and the manager its lease), and a new leader reports on its
  // own host only. Done when read; a reason to wait while the leader moves; an API error
  // other than that ends the wait.
  json report;
  const auto read_report = [&]() -> PollResult {
    // The new host's managers follow the leader as soon as they run, whatever first's do.
    kube::DynamicClient* const witnesses[] = {added.client.get()};
    if (auto followed = follow_leader(global, first, out.err(), witnesses); !followed) {
      return still_waiting(followed.error().message());
    }
    auto h = first.client->get(ref);
    if (!h && h.error().is_not_found()) {
      return still_waiting("the leader on " + first.cluster_id + " has not restored it yet");
    }
    if (!h) return fail(h.error().code(), h.error().to_error().message());
    report = std::move(*h);
    return poll_done();
  };
  std::string initial_cluster, member_id;
  FED_TRY(poll_until(
      [&]() -> PollResult {
        if (auto read = read_report(); !read || *read) return read;
        const json status = report.value("status", json::object());
        initial_cluster = status.value("initialCluster", "");
        member_id = status.value("memberID", "");
        if (status.value("phase", "Adding") == "Adding" ||
            initial_cluster.find(o.name + "=") == std::string::npos) {
          return still_waiting("the leader has not added its etcd member yet");
        }
        return poll_done();
      },
      o.timeout, "the etcd member of " + o.name + " to be added",
      "the leading manager did not add " + o.name + "'s etcd member", out));

  FED_ASSIGN_OR_RETURN(auto objects,
                       host_objects(*added.client, host_identity, render, member,
                                    EtcdBootstrap{federation, initial_cluster, member_id}, ca.ca));
  out.progress("Installing " + std::to_string(objects.size()) + " objects on " + o.name + "...");
  FED_ASSIGN_OR_RETURN(auto applied, apply_objects(*added.client, objects, "host " + o.name));
  FED_TRY(label_gateway(*added.client, nodes, {gateway, o.gateway_address}));
  FED_TRY(poll_until(
      [&]() -> PollResult {
        if (auto read = read_report(); !read || *read) return read;
        const json& host = report;
        if (ready_status(host) == "True") return poll_done();
        const auto conditions = fedapi::read_conditions(host.value("status", json::object()));
        const fedapi::Condition* ready = fedapi::find_condition(conditions, "Ready");
        return still_waiting(host.value("status", json::object()).value("phase", "Adding") + ": " +
                             (ready ? ready->message : "no report yet"));
      },
      o.timeout, "the etcd member of " + o.name + " to start and be promoted",
      "host " + o.name + "'s etcd member did not become a voting member (kubectl -n " +
          std::string(fedapi::kNamespace) + " logs deploy/fed-etcd --context " + o.name + ")",
      out));

  FED_ASSIGN_OR_RETURN(auto hosts,
                       first.client->list_all(fedapi::ref(fedapi::kFederationHost, "")));
  const std::size_t count = hosts.value("items", json::array()).size();
  json result{{"host", o.name},
              {"federation", federation},
              {"result", identity ? "alreadyAdded" : "added"},
              {"hosts", count},
              {"etcdMember", {{"clientURL", client_url(member)}, {"peerURL", peer_url(member)}}},
              {"changed", any_change(applied)}};
  out.print(result, [&](std::ostream& os) {
    os << "host " << o.name << (identity ? " was already a host" : " added") << " to federation "
       << federation << ": its etcd member " << peer_url(member)
       << " votes; its managers stand by (" << count << " hosts)\n";
  });
  if (count % 2 == 0) {
    out.err() << "warning: " << count << " hosts tolerate no more lost hosts than " << count - 1
              << " do; add or remove one\n";
  }
  return ok();
}

}  // namespace fed::plugin
