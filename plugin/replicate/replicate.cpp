#include "plugin/replicate/replicate.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>

#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/poll.hpp"
#include "plugin/manifests/apply.hpp"
#include "plugin/manifests/render.hpp"
#include "plugin/replicate/replication_report.hpp"
#include "shared/fedapi/deployment_replication.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/util/read_file.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

kube::ResourceRef replication_ref(const std::string& ns, const std::string& name) {
  return fedapi::ref_in(fedapi::kDeploymentReplication, ns, name);
}

kube::ResourceRef deployments_in(const std::string& ns) {
  return kube::ResourceRef{{"apps", "v1", "deployments"}, ns, "", ""};
}

// -f's text: the file, or stdin for "-" (kubectl's convention).
Result<std::string> read_manifest(const std::string& file) {
  if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  auto text = util::read_file(file);
  if (!text) return fail(ErrorCode::Invalid, "-f " + file + ": " + text.error().message());
  return std::move(*text);
}

// --from-deployment: the live Deployment; the fields that describe that object rather than the
// workload (status, server metadata, the revision annotation) are dropped by
// replication_from_deployment, which copies only labels, annotations and spec.
Result<json> read_deployment(kube::DynamicClient& host, const std::string& ns,
                             const std::string& name) {
  auto ref = deployments_in(ns);
  ref.name = name;
  auto got = host.get(ref);
  if (!got && got.error().is_not_found()) {
    return fail(ErrorCode::NotFound, "--from-deployment: deployment " + name +
                                         " not found in namespace " + ns +
                                         " (kubectl get deployments -n " + ns + ")");
  }
  if (!got) return got.error().to_error();
  return std::move(*got);
}

// The warnings of a replication that is written but will not do what it says yet. A read that
// fails (RBAC) only loses its warning: the replication itself is still right.
std::vector<std::string> replication_warnings(kube::DynamicClient& host, const std::string& ns,
                                              const ReplicateOptions& o) {
  std::vector<std::string> warnings;
  auto offloading = host.get(fedapi::ref_in(fedapi::kNamespaceOffloading, ns,
                                            std::string(fedapi::kNamespaceOffloadingName)));
  if (!offloading && offloading.error().is_not_found()) {
    warnings.push_back(no_offloading_warning(ns));
  }
  if (!o.generation_labels.empty()) {
    kube::ListOptions options;
    options.label_selector =
        std::string(fedapi::kTypeLabel) + "=" + std::string(fedapi::kTypeVirtualNode);
    auto nodes = host.list(kube::ResourceRef{{"", "v1", "nodes"}, "", "", ""}, options);
    if (nodes) {
      const std::string w = generation_label_warning(*nodes, o.generation_labels);
      if (!w.empty()) warnings.push_back(w);
    }
  }
  return warnings;
}

Status wait_ready(kube::DynamicClient& host, const std::string& ns, const std::string& name,
                  std::chrono::milliseconds timeout, Output& out) {
  const std::string what = "replication " + name + " in " + ns;
  return poll_until(
      [&]() -> PollResult {
        auto now = host.get(replication_ref(ns, name));
        if (!now) return now.error().to_error();
        if (replication_ready(*now)) return poll_done();
        return still_waiting(replication_waiting_reason(*now));
      },
      timeout, what, what + " is not Ready (is the manager running? kubectl fed status)", out);
}

// The replication's Deployments in `ns` (labelled replica-of=NAME by the manager).
kube::ApiResult<json> list_replicas(kube::DynamicClient& host, const std::string& ns,
                                    const std::string& name) {
  kube::ListOptions options;
  options.label_selector = std::string(fedapi::kReplicaOfLabel) + "=" + name;
  return host.list(deployments_in(ns), options);
}

void print_result(Output& out, const json& replication, ApplyOutcome outcome,
                  const std::vector<std::string>& warnings, const AvailableReplicas& available) {
  const json doc = replicate_result(replication, outcome, warnings, available);
  out.print(doc, [&](std::ostream& os) {
    os << object_label(replication) << " in " << doc["namespace"].get<std::string>() << " "
       << to_string(outcome) << "\n";
    const Table table = replicas_table(replication, available);
    if (table.rows.empty()) {
      os << "no replicas yet: the manager creates one per combination of generation labels "
            "(--wait waits for them)\n";
    } else {
      os << render_table(table);
    }
  });
}

Runner wire_replicate(CLI::App& app) {
  auto o = std::make_shared<ReplicateOptions>();
  auto timeout = std::make_shared<std::string>("2m");
  auto dry_run = std::make_shared<std::string>("none");
  app.add_option("name", o->name, "The DeploymentReplication (its replicas are NAME-xxxxx)");
  app.add_option("-f,--filename", o->file,
                 "An apps/v1 Deployment manifest to replicate ('-' reads stdin)");
  app.add_option("--from-deployment", o->from_deployment,
                 "Replicate the Deployment DEP of the namespace instead of a file");
  // One value per occurrence, as kubectl's repeatable flags: NAME after a flag stays NAME.
  app.add_option("--generation-label", o->generation_labels,
                 "One replica per combination of this virtual-node label's values; repeat for "
                 "several. Default: one replica per member")
      ->allow_extra_args(false);
  app.add_option("--selector", o->selectors,
                 "Only members whose virtual node matches (label-selector syntax, e.g. "
                 "'region notin (b)'), within the namespace's offloading; repeat to OR terms")
      ->allow_extra_args(false);
  app.add_flag("--wait", o->wait, "Wait until every combination has an Available replica");
  app.add_option("--timeout", *timeout, "How long --wait may take (default 2m)");
  app.add_option("--dry-run", *dry_run, "none, or client: print the object, change nothing");
  return [o, timeout, dry_run](const GlobalOptions& global, Output& out) -> Status {
    FED_ASSIGN_OR_RETURN(o->timeout, parse_timeout_flag(*timeout, "--timeout"));
    FED_ASSIGN_OR_RETURN(o->dry_run, parse_dry_run(*dry_run));
    return run_replicate(global, *o, out);
  };
}

Runner wire_unreplicate(CLI::App& app) {
  auto o = std::make_shared<UnreplicateOptions>();
  auto timeout = std::make_shared<std::string>("2m");
  app.add_option("name", o->name, "The DeploymentReplication to delete");
  app.add_flag("--wait", o->wait, "Wait until it and every replica are gone");
  app.add_option("--timeout", *timeout, "How long --wait may take (default 2m)");
  return [o, timeout](const GlobalOptions& global, Output& out) -> Status {
    FED_ASSIGN_OR_RETURN(o->timeout, parse_timeout_flag(*timeout, "--timeout"));
    return run_unreplicate(global, *o, out);
  };
}

}  // namespace

const Command kReplicateCommand{
    .name = "replicate",
    .summary = "Run one Deployment replica per member or label combination (replication)",
    .description =
        "Replicates a Deployment across the members of an offloaded namespace: the manager "
        "creates one replica NAME-xxxxx in the namespace per combination of the "
        "--generation-label values over the virtual nodes the namespace's offloading and "
        "--selector select (one per member without --generation-label), pinned to those "
        "virtual nodes; unreplicate deletes them. Writes the DeploymentReplication NAME by "
        "server-side apply; replicating again with the same input changes nothing.",
    .usage =
        "replicate NAME -n NS (-f FILE | --from-deployment DEP) [--generation-label KEY]... "
        "[--selector EXPR]... [--wait] [--timeout D] [--dry-run=client] [flags]",
    .examples =
        "  # One replica of web.yaml per member of the offloaded namespace shop\n"
        "  kubectl fed replicate web -n shop -f web.yaml --context c1 --wait\n"
        "\n"
        "  # One replica per region and provider, outside region b\n"
        "  kubectl fed replicate web -n shop -f web.yaml --generation-label region \\\n"
        "      --generation-label provider --selector 'region notin (b)'\n"
        "\n"
        "  # Replicate the Deployment api that already runs in shop; print, change nothing\n"
        "  kubectl fed replicate api -n shop --from-deployment api --dry-run=client -o yaml\n",
    .arg_values = {},
    .wire = wire_replicate,
};

const Command kUnreplicateCommand{
    .name = "unreplicate",
    .summary = "Delete a Deployment replication and, by garbage collection, its replicas",
    .description =
        "Deletes the DeploymentReplication NAME; Kubernetes' garbage collector removes the "
        "replicas it owns. --wait returns when they are gone.",
    .usage = "unreplicate NAME -n NS [--wait] [--timeout D] [flags]",
    .examples = "  kubectl fed unreplicate web -n shop --context c1 --wait\n",
    .arg_values = {},
    .wire = wire_unreplicate,
};

Status run_replicate(const GlobalOptions& global, const ReplicateOptions& o, Output& out) {
  FED_TRY(validate_replicate_flags(o));
  FED_ASSIGN_OR_RETURN(const std::string ns, command_namespace(global));
  FED_TRY(validate_replication_namespace(ns));
  // A file is checked before connecting: its mistakes are named even with no cluster reachable.
  json desired;
  if (!o.file.empty()) {
    const std::string source = "-f " + o.file;
    FED_ASSIGN_OR_RETURN(const std::string text, read_manifest(o.file));
    FED_ASSIGN_OR_RETURN(const json deployment, deployment_from_manifest(text, source));
    FED_ASSIGN_OR_RETURN(desired, replication_from_deployment(o, ns, deployment, source));
  }
  // A dry run checks what the real run checks (the host, the namespace); it only writes nothing.
  FED_ASSIGN_OR_RETURN(const HostConnection host, connect_leading_host(global));
  kube::DynamicClient& client = *host.client;
  if (!o.from_deployment.empty()) {
    FED_ASSIGN_OR_RETURN(const json deployment, read_deployment(client, ns, o.from_deployment));
    FED_ASSIGN_OR_RETURN(
        desired, replication_from_deployment(o, ns, deployment, "deployment/" + o.from_deployment));
  }
  const auto ns_object = client.get(kube::ResourceRef{{"", "v1", "namespaces"}, "", ns, ""});
  if (!ns_object && ns_object.error().is_not_found()) {
    return fail(ErrorCode::NotFound,
                "namespace " + ns + " does not exist on the host: create and offload it first");
  }
  if (!ns_object) return ns_object.error().to_error();
  if (o.dry_run == DryRun::Client) {
    out.print(desired, [&](std::ostream& os) {
      os << object_label(desired) << " in " << ns << " (dry run)\n";
    });
    return ok();
  }
  const std::vector<std::string> warnings = replication_warnings(client, ns, o);
  for (const auto& w : warnings) out.err() << "warning: " << w << "\n";

  FED_ASSIGN_OR_RETURN(const auto live, get_live(client, desired));
  if (live && live->value("metadata", json::object()).contains("deletionTimestamp")) {
    return fail(ErrorCode::Conflict, "replication " + o.name + " in " + ns +
                                         " is being deleted; wait for it, then replicate again");
  }
  const ApplyOutcome outcome = replication_outcome(live, desired);
  if (outcome != ApplyOutcome::Unchanged) {
    FED_TRY(write_object(client, desired, "host " + host.cluster_id));
  }
  if (o.wait) FED_TRY(wait_ready(client, ns, o.name, o.timeout, out));
  auto now = client.get(replication_ref(ns, o.name));
  auto replicas = list_replicas(client, ns, o.name);
  const AvailableReplicas available =
      replicas ? AvailableReplicas(available_deployments(*replicas)) : std::nullopt;
  print_result(out, now ? *now : desired, outcome, warnings, available);
  return ok();
}

Status run_unreplicate(const GlobalOptions& global, const UnreplicateOptions& o, Output& out) {
  if (!is_dns_label(o.name)) {
    return fail(ErrorCode::Invalid, "NAME \"" + o.name +
                                        "\": give the replication's name, e.g. kubectl fed "
                                        "unreplicate web -n shop");
  }
  FED_ASSIGN_OR_RETURN(const std::string ns, command_namespace(global));
  FED_TRY(validate_replication_namespace(ns));
  FED_ASSIGN_OR_RETURN(auto host, connect_leading_host(global));
  kube::DynamicClient& client = *host.client;
  auto removed = client.remove(replication_ref(ns, o.name));
  // Taking back what is not there is done already, as for unoffload and peer --remove (exit 0):
  // a script's cleanup runs twice without failing.
  if (!removed && removed.error().is_not_found()) {
    out.print(json{{"name", o.name}, {"namespace", ns}, {"result", "notReplicated"}},
              [&](std::ostream& os) {
                os << "replication " << o.name << " not found in " << ns << ": nothing to delete\n";
              });
    return ok();
  }
  if (!removed) return removed.error().to_error();
  if (o.wait) {
    const std::string what = "replication " + o.name + " in " + ns;
    FED_TRY(poll_until(
        [&]() -> PollResult {
          auto still = client.get(replication_ref(ns, o.name));
          if (still) return still_waiting("the DeploymentReplication is still there");
          if (!still.error().is_not_found()) return still.error().to_error();
          auto replicas = list_replicas(client, ns, o.name);
          if (!replicas) return replicas.error().to_error();
          const std::size_t left = replicas->value("items", json::array()).size();
          if (left > 0) return still_waiting(std::to_string(left) + " replica(s) left");
          return poll_done();
        },
        o.timeout, what + " to go",
        what + " not gone (is the garbage collector blocked by a finalizer?)", out));
  }
  out.print(json{{"name", o.name}, {"namespace", ns}, {"result", "deleted"}},
            [&](std::ostream& os) {
              os << "replication " << o.name << " in " << ns
                 << (o.wait ? " deleted with every replica"
                            : " deleted; its replicas go by garbage collection")
                 << "\n";
            });
  return ok();
}

}  // namespace fed::plugin
