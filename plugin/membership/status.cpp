#include "plugin/membership/status.hpp"

#include <CLI/CLI.hpp>

#include <ostream>

#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/rest_config.hpp"
#include "plugin/host/host_status.hpp"
#include "plugin/manifests/render.hpp"
#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/kube/dynamic_client.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

Runner wire_status(CLI::App&) {
  return [](const GlobalOptions& global, Output& out) -> Status {
    return run_status(global, StatusOptions{}, out);
  };
}

std::string condition_status(const json& conditions, std::string_view type) {
  for (const auto& c : conditions) {
    if (c.value("type", "") == type) return c.value("status", "Unknown");
  }
  return "Unknown";
}

// The same of a typed status's conditions.
std::string condition_status(const std::vector<fedapi::Condition>& conditions,
                             std::string_view type) {
  const fedapi::Condition* c = fedapi::find_condition(conditions, type);
  return c ? c->status : "Unknown";
}

// The first condition that is not True, as "Type: message", for the table's last column.
std::string first_problem(const json& conditions) {
  for (const auto& c : conditions) {
    if (c.value("status", "") == "True" || c.value("type", "") == "Ready") continue;
    return c.value("type", "") + ": " + c.value("message", c.value("reason", ""));
  }
  return "";
}

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

// The FederationHosts as the leader's host has them, their status.etcd fresh from the leading
// manager's probes: this host's when it leads (or runs the only manager), else through the
// kubeconfig context that reaches the leader's host; none when nobody leads or none does.
std::optional<json> leader_federation_hosts(const GlobalOptions& global,
                                            kube::DynamicClient& client,
                                            const std::optional<json>& leader) {
  const auto list = [](kube::DynamicClient& c) -> std::optional<json> {
    auto hosts = c.list_all(fedapi::ref(fedapi::kFederationHost, ""));
    if (!hosts) return std::nullopt;
    return std::move(*hosts);
  };
  const json data = leader ? leader->value("data", json::object()) : json::object();
  if (data.value("holder", "") == "None") return std::nullopt;
  if (data.value("role", "leader") == "leader") return list(client);
  // fed-leader, read already, names the leader's host: only a context for it is looked for.
  auto there = connect_host_named(global, data.value("host", ""));
  if (!there) return std::nullopt;
  return list(*there->host.client);
}

// What the HOSTS table needs; what cannot be read shows as unknown.
HostObservation observe_host(const GlobalOptions& global, kube::DynamicClient& client,
                             const std::string& host_id) {
  HostObservation o;
  o.host_id = host_id;
  const std::string ns(fedapi::kNamespace);
  if (auto cm = client.get(kube::ResourceRef{
          {"", "v1", "configmaps"}, ns, std::string(fedapi::kLeaderConfigMap), ""})) {
    o.leader = std::move(*cm);
  }
  o.federation_hosts = leader_federation_hosts(global, client, o.leader);
  auto pods = [&](const char* name) -> std::optional<json> {
    kube::ListOptions options;
    options.label_selector = std::string("app.kubernetes.io/name=") + name;
    auto list = client.list_all(kube::ResourceRef{{"", "v1", "pods"}, ns, "", ""}, options);
    if (!list) return std::nullopt;
    return std::move(*list);
  };
  o.etcd_pods = pods("fed-etcd");
  o.manager_pods = pods("fed-manager");
  return o;
}

}  // namespace

const Command kStatusCommand{
    .name = "status",
    .summary = "Show the federation's members, networks and tunnels",
    .description =
        "Show the federation hosted by the current cluster: its id, PodCIDR and ServiceCIDR, and "
        "for every member its Ready, NetworkReady and TunnelReady conditions, its networks and "
        "how each side remaps the other's (None: used as announced), and the tunnel's state "
        "from the host's Peering; then every offloaded namespace with its offloadingPhase, the "
        "replicas' name and each selected member's replica state. -o json|yaml print the whole "
        "document.",
    .usage = "status [-o table|json|yaml] [flags]",
    .examples =
        "  # The federation hosted by c1\n"
        "  kubectl fed status --context c1\n"
        "\n"
        "  # Machine-readable\n"
        "  kubectl fed status --context c1 -o json\n",
    .arg_values = {},
    .wire = wire_status,
};

json status_document(const json& federation_data, const json& federated_clusters,
                     const json& peerings, const json& offloadings) {
  json doc{{"federation",
            {{"clusterID", federation_data.value("clusterID", "")},
             {"role", federation_data.value("role", "")},
             {"podCIDR", federation_data.value("podCIDR", "")},
             {"serviceCIDR", federation_data.value("serviceCIDR", "")}}},
           {"members", json::array()}};
  for (const auto& fc : federated_clusters.value("items", json::array())) {
    const std::string name = fc["metadata"].value("name", "");
    const json spec = fc.value("spec", json::object());
    const json status = fc.value("status", json::object());
    json member{{"name", name},
                {"clusterID", spec.value("clusterID", name)},
                {"apiEndpoint", spec.value("apiEndpoint", "")},
                {"conditions", status.value("conditions", json::array())},
                {"networks", status.value("networks", json::object())},
                {"tunnel", status.value("tunnel", json::object())}};
    if (fc["metadata"].contains("deletionTimestamp")) member["terminating"] = true;
    if (spec.contains("clusterLabels")) member["clusterLabels"] = spec["clusterLabels"];
    if (spec.contains("offered")) member["offered"] = spec["offered"];
    for (const auto& p : peerings.value("items", json::array())) {
      if (p["metadata"].value("name", "") != member["clusterID"]) continue;
      const json ps = p.value("status", json::object());
      member["peering"] = {
          {"gatewayEndpoint", p.value("spec", json::object()).value("gatewayEndpoint", "")},
          {"gatewayNode", ps.value("gatewayNode", "")},
          {"tunnel", ps.value("tunnel", json::object())},
          {"conditions", ps.value("conditions", json::array())}};
    }
    doc["members"].push_back(member);
  }
  doc["offloadings"] = json::array();
  for (const auto& off : offloadings.value("items", json::array())) {
    // An unreadable status shows as none: the manager has not written one it can stand by.
    const auto status = fedapi::decode<fedapi::NamespaceOffloadingStatus>(
                            off.value("status", json::object()), "status")
                            .value_or(fedapi::NamespaceOffloadingStatus{});
    json clusters = json::object();
    for (const auto& [id, conditions] : status.remote_namespaces_conditions) {
      clusters[id] = {{"offloadingRequired",
                       condition_status(conditions, fedapi::kConditionOffloadingRequired)},
                      {"ready", condition_status(conditions, fedapi::kConditionReady)}};
    }
    doc["offloadings"].push_back(
        {{"namespace", off["metadata"].value("namespace", "")},
         {"phase", status.offloading_phase
                       ? std::string(fedapi::to_string(*status.offloading_phase))
                       : std::string()},
         {"remoteNamespace", status.remote_namespace_name},
         {"podOffloadingStrategy",
          off.value("spec", json::object()).value("podOffloadingStrategy", "LocalAndRemote")},
         {"clusters", clusters}});
  }
  return doc;
}

Table offloadings_table(const json& doc) {
  Table t;
  t.headers = {"NAMESPACE", "PHASE", "REMOTE NAME", "PODS", "MEMBERS (replica Ready)"};
  for (const auto& o : doc.value("offloadings", json::array())) {
    std::string members;
    for (const auto& [id, c] : o["clusters"].items()) {
      members += (members.empty() ? "" : " ") + id + "=" + c.value("ready", "Unknown");
    }
    t.rows.push_back({o.value("namespace", ""), or_dash(o.value("phase", "")),
                      or_dash(o.value("remoteNamespace", "")), o.value("podOffloadingStrategy", ""),
                      or_dash(members)});
  }
  return t;
}

Table status_table(const json& doc) {
  Table t;
  t.headers = {"MEMBER",    "READY",         "NETWORK",       "TUNNEL",          "POD CIDR",
               "PODS HERE", "EXTERNAL CIDR", "EXTERNAL HERE", "HOST PODS THERE", "MESSAGE"};
  for (const auto& m : doc["members"]) {
    const json& n = m["networks"];
    std::string tunnel = m["tunnel"].value("state", "");
    if (m.contains("peering") && m["peering"]["tunnel"].contains("state")) {
      tunnel = m["peering"]["tunnel"].value("state", tunnel);
    }
    // WireGuard is the default; the unencrypted tunnel says so.
    if (!tunnel.empty() && m["tunnel"].value("backend", "") == "vxlan") tunnel += " (vxlan)";
    std::string message = first_problem(m["conditions"]);
    if (m.value("terminating", false)) message = "unjoining";
    t.rows.push_back({m.value("name", ""), condition_status(m["conditions"], "Ready"),
                      condition_status(m["conditions"], "NetworkReady"), or_dash(tunnel),
                      or_dash(n.value("podCIDR", "")), or_dash(n.value("remotePodCIDR", "")),
                      or_dash(n.value("externalCIDR", "")),
                      or_dash(n.value("remoteExternalCIDR", "")),
                      or_dash(n.value("localRemappedPodCIDR", "")), message});
  }
  return t;
}

Status run_status(const GlobalOptions& global, const StatusOptions&, Output& out) {
  FED_ASSIGN_OR_RETURN(auto config, rest_config_for(global));
  FED_ASSIGN_OR_RETURN(auto client, kube::DynamicClient::create(std::move(config)));
  auto cm = client->get(kube::ResourceRef{{"", "v1", "configmaps"},
                                          std::string(fedapi::kNamespace),
                                          std::string(kFederationConfigMap),
                                          ""});
  if (!cm) {
    if (cm.error().is_not_found()) {
      return fail(ErrorCode::NotFound,
                  "this cluster is in no federation: make it a host with "
                  "kubectl fed init, or pass the host's --context");
    }
    return cm.error().to_error();
  }
  const json data = cm->value("data", json::object());
  json clusters = json::object(), peerings = json::object();
  if (data.value("role", "") == "host") {
    FED_ASSIGN_OR_RETURN(clusters, client->list_all(fedapi::ref(fedapi::kFederatedCluster, "")));
  }
  auto p = client->list_all(fedapi::ref(fedapi::kPeering, ""));
  if (p) peerings = std::move(*p);
  json offloadings = json::object();
  if (data.value("role", "") == "host") {
    auto o = client->list_all(fedapi::ref_in(fedapi::kNamespaceOffloading, "", ""));
    if (o) offloadings = std::move(*o);
  }
  json doc = status_document(data, clusters, peerings, offloadings);
  if (data.value("role", "") == "host") {
    const json hosts = hosts_document(observe_host(global, *client, data.value("clusterID", "")));
    doc["leader"] = hosts["leader"];
    doc["hosts"] = hosts["hosts"];
  }
  out.print(doc, [&](std::ostream& os) {
    const json& f = doc["federation"];
    if (data.value("role", "") != "host") {
      os << "cluster " << f.value("clusterID", "") << " is a member of federation "
         << data.value("federationID", "") << "; run status on the host for the members\n";
      return;
    }
    os << "Federation " << f.value("clusterID", "") << " (host): PodCIDR " << f.value("podCIDR", "")
       << ", ServiceCIDR " << f.value("serviceCIDR", "") << ", " << doc["members"].size()
       << " member(s)\n";
    os << leader_line(doc) << "\n\n" << render_table(hosts_table(doc));
    if (!doc["members"].empty()) os << "\n" << render_table(status_table(doc));
    if (!doc["offloadings"].empty()) {
      os << "\nOffloaded namespaces:\n" << render_table(offloadings_table(doc));
    }
  });
  return ok();
}

}  // namespace fed::plugin
