#include "plugin/reconfigure/reconfigure.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <ostream>

#include "plugin/connect/commit_wait.hpp"
#include "plugin/reconfigure/feature_config_record.hpp"
#include "plugin/reconfigure/reconfigure_features.hpp"
#include "plugin/reconfigure/reconfigure_manifests.hpp"
#include "plugin/reconfigure/reconfigure_report.hpp"
#include "plugin/reconfigure/reconfigure_targets.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/util/parallel_for.hpp"
#include "shared/util/read_file.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

Runner wire_reconfigure(CLI::App& app) {
  auto o = std::make_shared<ReconfigureOptions>();
  app.add_option("action", o->action, "status: show the nodes' reconfiguration state");
  app.add_option("--set", o->set,
                 "field=value, repeatable (cpuManagerPolicy=static, reservedSystemCPUs=0, "
                 "featureGates.GATE=true, maxPods=50, ...; docs/RECONFIGURE.md lists them), or "
                 "a cluster feature: podPreset=true");
  app.add_option("-f,--filename", o->file,
                 "A FeatureConfig (fed.kubectl-fed.io/v1alpha1) whose spec.kubelet holds the "
                 "fields to set and spec.podPreset the feature");
  auto* max_unavailable =
      app.add_option("--max-unavailable", o->max_unavailable,
                     "Nodes of a cluster changed at the same time (default: the FeatureConfig's "
                     "spec.maxUnavailable, else 1)");
  app.add_flag("--drain", o->drain, "Cordon and drain each node before its change");
  auto* clusters = app.add_option(
      "--clusters", o->clusters,
      "The federation's members to change, by their cluster labels (a label selector such as "
      "region=eu, or all), chosen on the host --context and each reached through the context "
      "named after it; default: the FeatureConfig's spec.clusterSelector, else the --context "
      "clusters themselves");
  app.add_option("--image", o->image,
                 "The fed-agent image the node pods run (default \"" + o->image + "\")");
  app.add_flag("--webhook-caller-auth", o->webhook_caller_auth,
               "A feature's webhook (podpreset): " + std::string(kWebhookCallerAuthHelp));
  app.add_option("--distribution", o->distribution,
                 "The nodes' Kubernetes distribution: its kubelet config, root dir and restart "
                 "from the agent's table (kubeadm, k3s, eks-al2023, eks, aks, gke). Default: "
                 "none, each node's running kubelet says (its --config, --config-dir, "
                 "--root-dir and systemd unit); --kubelet-config and friends override");
  app.add_option("--kubelet-config", o->kubelet_config,
                 "The kubelet's config file on the nodes; {node} is the node's name (default: "
                 "the running kubelet's --config)");
  app.add_option("--kubelet-config-dir", o->kubelet_config_dir,
                 "The kubelet's --config-dir on the nodes: write a drop-in there instead");
  app.add_option("--kubelet-root-dir", o->kubelet_root_dir,
                 "The kubelet's --root-dir on the nodes (default: the running kubelet's)");
  app.add_option("--restart-command", o->restart_command,
                 "How the agent restarts the kubelet, words separated by spaces, {node} the "
                 "node's name (default: systemctl restart of the kubelet's unit in PID 1's "
                 "namespaces; without one, the kubelet is stopped for its supervisor to start)");
  app.add_option("--timeout", o->timeout,
                 "The health gate's limit after each kubelet restart (default 2m)");
  app.add_option("--dry-run", o->dry_run,
                 "client: print the objects (with -o yaml|json) instead of creating them");
  app.add_option("--cni-conflist", o->cni_conflist,
                 "Switch the nodes' network: install this CNI .conflist beside the current ones "
                 "under a name that sorts first ({node} is replaced per node); runs alone");
  app.add_option("--cni-conf-dir", o->cni_conf_dir,
                 "The runtime's CNI config directory on the nodes, {node} the node's name "
                 "(default /etc/cni/net.d)");
  app.add_flag("--rollback", o->rollback,
               "Undo a CNI switch: remove its file, so new pods get the previous network");
  app.add_flag("--wait", o->wait,
               "Return when every node and feature is done (always: the plugin drives the "
               "rollout; --wait=false is refused)");
  app.add_flag("--cleanup", o->cleanup,
               "Remove the agent's ServiceAccount and RBAC after success (default true; "
               "--cleanup=false keeps them)");
  return [o, max_unavailable, clusters](const GlobalOptions& global, Output& out) -> Status {
    o->max_unavailable_given = max_unavailable->count() > 0;
    o->clusters_given = clusters->count() > 0;
    if (o->action == "status") {
      if (!o->set.empty() || !o->file.empty()) {
        return Error(ErrorCode::Invalid, "reconfigure status takes no --set or -f");
      }
      return run_reconfigure_status(global, *o, out);
    }
    if (!o->action.empty()) {
      return Error(ErrorCode::Invalid,
                   "unknown argument \"" + o->action + "\": expected nothing or \"status\"");
    }
    return run_reconfigure(global, *o, out);
  };
}

// Runs `work(context, index)` for every context in its own thread.
template <typename Work>
void for_each_context(const std::vector<std::string>& contexts, Work work) {
  util::parallel_for(contexts.size(), contexts.size(),
                     [&](std::size_t i) { work(contexts[i], i); });
}

Status print_dry_run(const ReconfigurePlan& plan, Output& out) {
  std::vector<json> objects = {reconfigure_namespace()};
  for (const auto& feature : plan.features) {
    FED_ASSIGN_OR_RETURN(auto feature_objs,
                         feature_objects(feature, plan.image, plan.webhook_caller_auth));
    for (auto& o : feature_objs) objects.push_back(std::move(o));
  }
  if (!plan.changes.changes.empty()) {
    for (auto& o : reconfigure_rbac()) objects.push_back(std::move(o));
    objects.push_back(agent_pod(plan, "NODE"));
  }
  const json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", objects}};
  out.print(list, [&](std::ostream& os) {
    for (const auto& o : objects) {
      os << o.value("kind", "") << " " << o["metadata"].value("name", "") << " (dry run)\n";
    }
    if (!plan.changes.changes.empty()) {
      os << "one Pod per node (NODE above), " << plan.max_unavailable
         << " node(s) at a time per cluster\n";
    }
  });
  return ok();
}

}  // namespace

const Command kReconfigureCommand{
    .name = "reconfigure",
    .summary =
        "Make features consistent: kubelet settings on every node (rolling, health-gated, "
        "with rollback) and APIs such as PodPreset",
    .description =
        "Install cluster features (podPreset=true: the PodPreset API as a CRD and a mutating "
        "webhook, waited for until Ready) and set allow-listed KubeletConfiguration fields "
        "(--set or a FeatureConfig file) on every "
        "node of each --context (repeatable; clusters run in parallel). Nodes roll in batches of "
        "--max-unavailable: optionally cordoned and drained, then a one-shot privileged pod "
        "pinned to the node runs `fed-agent reconfigure-node`, which backs up the kubelet's "
        "config, rewrites it, restarts the kubelet and checks /healthz, Ready and /configz, "
        "rolling back when the check fails. A node that does not apply stops its cluster's "
        "rollout. `reconfigure status` shows per node what was asked, what the kubelet runs, "
        "the phase and the last error. Unknown fields are refused before anything is touched "
        "(exit 2); a rolled-back or failed node exits 1.",
    .usage = "reconfigure [status] (--set field=value... | -f FILE) [--clusters SEL] [flags]",
    .examples =
        "  # The static CPU manager policy with CPU 0 reserved, one node at a time\n"
        "  kubectl fed reconfigure --context c2 --set cpuManagerPolicy=static \\\n"
        "      --set reservedSystemCPUs=0 --max-unavailable 1\n"
        "\n"
        "  # Two clusters in parallel, draining each node first, from a FeatureConfig\n"
        "  kubectl fed reconfigure --context c2 --context c3 -f features.yaml --drain\n"
        "\n"
        "  # New pods on c2 get their network from another CNI config; then back\n"
        "  kubectl fed reconfigure --context c2 --cni-conflist alt.conflist --drain\n"
        "  kubectl fed reconfigure --context c2 --rollback\n"
        "\n"
        "  # The PodPreset API on two clusters; then gone again\n"
        "  kubectl fed reconfigure --context c2 --context c3 --set podPreset=true\n"
        "  kubectl fed reconfigure --context c2 --context c3 --set podPreset=false\n"
        "\n"
        "  # Every member of the federation hosted on c1 labelled region=eu; a FeatureConfig\n"
        "  # with a name is recorded on c1 (kubectl get featureconfigs)\n"
        "  kubectl fed reconfigure --context c1 --clusters region=eu -f features.yaml\n"
        "\n"
        "  # What each node was asked and runs\n"
        "  kubectl fed reconfigure status --context c2 -o json\n",
    .arg_values = {"status"},
    .wire = wire_reconfigure,
};

Status run_reconfigure(const GlobalOptions& global, const ReconfigureOptions& options,
                       Output& out) {
  std::string text;
  if (!options.file.empty()) {
    auto read = util::read_file(options.file);
    if (!read)
      return Error(ErrorCode::Invalid, "-f " + options.file + ": " + read.error().message());
    text = *read;
  }
  std::string conflist;
  if (!options.cni_conflist.empty()) {
    auto read = util::read_file(options.cni_conflist);
    if (!read) {
      return Error(ErrorCode::Invalid,
                   "--cni-conflist " + options.cni_conflist + ": " + read.error().message());
    }
    conflist = *read;
  }
  FED_ASSIGN_OR_RETURN(const ReconfigurePlan plan, make_plan(options, text, conflist));
  if (plan.dry_run) return print_dry_run(plan, out);
  FED_ASSIGN_OR_RETURN(const Targets targets,
                       resolve_targets(global, plan.cluster_selector, out.err()));
  // The record of a FeatureConfig rolled out over members lives on the hosts: a replicated
  // object, written on the leader's host (a follower's refuses it), which --context may not be.
  const bool record = targets.host && !plan.feature_config.is_null();
  const std::string record_name =
      record ? plan.feature_config["metadata"].value("name", "") : std::string();
  std::int64_t generation = 0;
  const std::optional<HostConnection>& record_host = targets.host;
  std::string record_label;
  if (record) {
    record_label = "host " + record_host->cluster_id;
    FED_ASSIGN_OR_RETURN(generation,
                         record_start(*record_host->client, plan.feature_config, targets.labels));
    out.progress(record_label + ": FeatureConfig " + record_name + " Progressing");
  }
  std::vector<ClusterResult> results(targets.contexts.size());
  std::mutex progress_mutex;
  for_each_context(targets.contexts, [&](const std::string& context, std::size_t i) {
    const std::string& name = targets.labels[i];
    const ProgressFn progress = [&](const std::string& line) {
      std::lock_guard lock(progress_mutex);
      out.progress(name + ": " + line);
    };
    auto client = client_for(global, context);
    if (!client) {
      results[i] = ClusterResult{name, {}, {}, client.error()};
      return;
    }
    results[i] = roll_out(**client, plan, name, progress);
  });
  if (record) {
    // The members were changed whatever the record says; a record that did not land or was
    // not committed is said, not made the run's failure.
    auto r = record_result(*record_host->client, record_name, results, generation);
    if (r) r = wait_committed(*record_host, fedapi::ref(fedapi::kFeatureConfig, record_name), out);
    if (!r) out.progress(record_label + ": " + r.error().message());
  }
  out.print(rollout_json(plan, results),
            [&](std::ostream& os) { os << render_table(rollout_table(results)); });
  return rollout_status(results);
}

Status run_reconfigure_status(const GlobalOptions& global, const ReconfigureOptions& options,
                              Output& out) {
  std::optional<std::string> selector;
  if (options.clusters_given) {
    auto parsed = kube::LabelSelector::parse(options.clusters == "all" ? "" : options.clusters);
    if (!parsed) return std::move(parsed).error().with_context("--clusters");
    selector = parsed->to_string();
  }
  FED_ASSIGN_OR_RETURN(const Targets targets, resolve_targets(global, selector, out.err()));
  std::vector<ClusterStatus> results(targets.contexts.size());
  for_each_context(targets.contexts, [&](const std::string& context, std::size_t i) {
    const std::string& name = targets.labels[i];
    auto client = client_for(global, context);
    if (!client) {
      results[i] = ClusterStatus{name, {}, {}, client.error()};
      return;
    }
    results[i] = read_status(**client, name);
  });
  out.print(status_json(results),
            [&](std::ostream& os) { os << render_table(status_table(results)); });
  for (const auto& c : results) {
    if (c.error) return c.error->with_context("context " + c.context);
  }
  return ok();
}

}  // namespace fed::plugin
