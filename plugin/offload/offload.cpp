#include "plugin/offload/offload.hpp"

#include <CLI/CLI.hpp>

#include <initializer_list>
#include <memory>
#include <ostream>
#include <vector>

#include "plugin/cli/cluster_selector_flag.hpp"
#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/poll.hpp"
#include "plugin/manifests/render.hpp"
#include "plugin/offload/offloading_wait.hpp"
#include "plugin/offload/pods_home.hpp"
#include "plugin/offload/reflection_grant.hpp"
#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/offload/node_selector_match.hpp"
#include "shared/offload/reflection_grant.hpp"
#include "shared/offload/remote_namespace.hpp"
#include "shared/util/duration.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

Status check_kind(const std::string& kind) {
  if (kind == "namespace" || kind == "ns") return ok();
  if (kind.empty()) {
    return fail(ErrorCode::Invalid,
                "KIND and NAME are required: only namespaces are offloaded, e.g. kubectl fed "
                "offload namespace shop");
  }
  return fail(ErrorCode::Invalid, "unknown kind \"" + kind +
                                      "\": only namespaces are offloaded, e.g. kubectl fed "
                                      "offload namespace shop");
}

Runner wire_offload(CLI::App& app) {
  auto o = std::make_shared<OffloadOptions>();
  auto timeout = std::make_shared<std::string>("2m");
  auto dry_run = std::make_shared<std::string>("none");
  app.add_option("kind", o->kind, "namespace");
  app.add_option("name", o->namespace_name, "The host namespace to offload");
  app.add_option("--namespace-mapping-strategy", o->namespace_mapping_strategy,
                 "DefaultName (<ns>-<host id>), EnforceSameName or SelectedName");
  app.add_option("--remote-namespace-name", o->remote_namespace_name,
                 "The replicas' name (with --namespace-mapping-strategy SelectedName)");
  app.add_option("--pod-offloading-strategy", o->pod_offloading_strategy,
                 "LocalAndRemote, Local or Remote");
  app.add_option("--selector", o->selectors,
                 "Members whose virtual node matches (label-selector syntax, e.g. "
                 "'region in (eu),tier!=spot'); repeat to OR terms. Default: every member");
  app.add_flag("--wait", o->wait, "Wait until offloadingPhase is Ready");
  app.add_option("--timeout", *timeout, "How long --wait may take (default 2m)");
  app.add_option("--dry-run", *dry_run, "none, or client: print the object, change nothing");
  return [o, timeout, dry_run](const GlobalOptions& global, Output& out) -> Status {
    FED_ASSIGN_OR_RETURN(o->timeout, parse_timeout_flag(*timeout, "--timeout"));
    FED_ASSIGN_OR_RETURN(o->dry_run, parse_dry_run(*dry_run));
    return run_offload(global, *o, out);
  };
}

Runner wire_unoffload(CLI::App& app) {
  auto o = std::make_shared<UnoffloadOptions>();
  auto timeout = std::make_shared<std::string>("2m");
  app.add_option("kind", o->kind, "namespace");
  app.add_option("name", o->namespace_name, "The offloaded host namespace");
  app.add_flag("--wait", o->wait, "Wait until every replica is gone");
  app.add_flag("--force", o->force,
               "Delete the replicas with the pods running in them, without bringing the pods "
               "home first");
  app.add_option("--timeout", *timeout,
                 "How long bringing the pods home, and --wait, may each take (default 2m)");
  return [o, timeout](const GlobalOptions& global, Output& out) -> Status {
    FED_ASSIGN_OR_RETURN(o->timeout, parse_timeout_flag(*timeout, "--timeout"));
    return run_unoffload(global, *o, out);
  };
}

}  // namespace

const Command kOffloadCommand{
    .name = "offload",
    .summary = "Run a host namespace's pods on members too (namespace offloading)",
    .description =
        "Offloads a host namespace: the manager replicates it on every member whose virtual "
        "node matches --selector (as <ns>-<host id> by default) and its pods may be scheduled "
        "on those virtual nodes as --pod-offloading-strategy says. Writes the namespace's "
        "NamespaceOffloading `offloading`; offloading again with the same flags changes nothing.",
    .usage =
        "offload namespace NS [--selector EXPR]... [--pod-offloading-strategy S] "
        "[--namespace-mapping-strategy S] [--wait] [--dry-run=client] [flags]",
    .examples =
        "  # Offload shop to every member and wait for the replicas\n"
        "  kubectl fed offload namespace shop --context c1 --wait\n"
        "\n"
        "  # Only to members labelled region=eu, pods only there\n"
        "  kubectl fed offload namespace shop --selector 'region in (eu)' "
        "--pod-offloading-strategy Remote\n",
    .arg_values = {"namespace"},
    .wire = wire_offload,
};

const Command kUnoffloadCommand{
    .name = "unoffload",
    .summary = "Stop offloading a host namespace; its replicas on members are deleted",
    .description =
        "Brings the namespace's pods home first, while the members still serve them: the "
        "pod strategy becomes Local, the pods on members are evicted (PodDisruptionBudgets "
        "respected) and their workloads waited for until ready on the host; a budget that "
        "does not allow it within --timeout stops the unoffload with nothing deleted. Then "
        "deletes the namespace's NamespaceOffloading: the manager removes the replicas from "
        "every member (the object stays Terminating meanwhile); --wait returns when they are "
        "gone. --force skips bringing the pods home.",
    .usage = "unoffload namespace NS [--wait] [--force] [--timeout D] [flags]",
    .examples = "  kubectl fed unoffload namespace shop --context c1 --wait\n",
    .arg_values = {"namespace"},
    .wire = wire_unoffload,
};

namespace {

// An unknown strategy, named by the flag that gave it rather than by the spec field it fills.
template <typename Enum>
Status check_choice(const std::string& value, std::initializer_list<Enum> choices,
                    const std::string& flag) {
  std::vector<std::string> names;
  for (Enum c : choices) {
    if (value == fedapi::to_string(c)) return ok();
    names.emplace_back(fedapi::to_string(c));
  }
  return fail(ErrorCode::Invalid,
              flag + " must be one of " + util::join(names, ", ") + ", not \"" + value + "\"");
}

}  // namespace

Result<json> offloading_from_flags(const OffloadOptions& o, const std::string& host_id) {
  FED_TRY(check_kind(o.kind));
  using fedapi::NamespaceMappingStrategy;
  using fedapi::PodOffloadingStrategy;
  FED_TRY(check_choice(
      o.namespace_mapping_strategy,
      {NamespaceMappingStrategy::DefaultName, NamespaceMappingStrategy::EnforceSameName,
       NamespaceMappingStrategy::SelectedName},
      "--namespace-mapping-strategy"));
  FED_TRY(check_choice(o.pod_offloading_strategy,
                       {PodOffloadingStrategy::LocalAndRemote, PodOffloadingStrategy::Local,
                        PodOffloadingStrategy::Remote},
                       "--pod-offloading-strategy"));
  if (!offload::is_dns_label(o.namespace_name)) {
    return fail(ErrorCode::Invalid,
                "NS \"" + o.namespace_name + "\": not a namespace name (1-63 of a-z, 0-9, '-')");
  }
  json spec{{"namespaceMappingStrategy", o.namespace_mapping_strategy},
            {"podOffloadingStrategy", o.pod_offloading_strategy}};
  if (!o.remote_namespace_name.empty()) spec["remoteNamespaceName"] = o.remote_namespace_name;
  if (!o.selectors.empty()) {
    FED_ASSIGN_OR_RETURN(auto selector, node_selector_from_flags(o.selectors));
    spec["clusterSelector"] = selector;
  }
  auto decoded = fedapi::decode<fedapi::NamespaceOffloadingSpec>(spec, "flags");
  if (!decoded) {
    return fail(ErrorCode::Invalid,
                decoded.error().message() + " (set by --remote-namespace-name)");
  }
  // DefaultName's length depends on the host's id: unknown (empty) before connecting.
  if (!host_id.empty() ||
      decoded->namespace_mapping_strategy != fedapi::NamespaceMappingStrategy::DefaultName) {
    auto remote = offload::remote_namespace_name(*decoded, o.namespace_name, host_id);
    if (!remote) return fail(ErrorCode::Invalid, remote.error().message());
  }
  return json{{"apiVersion", std::string(fedapi::kApiVersion)},
              {"kind", std::string(fedapi::kNamespaceOffloading.kind)},
              {"metadata",
               {{"name", std::string(fedapi::kNamespaceOffloadingName)},
                {"namespace", o.namespace_name},
                {"labels", {{std::string(kPartOfLabel), std::string(kPartOfValue)}}}}},
              {"spec", *decoded}};
}

// A warning when no virtual node on the host matches the offloading's clusterSelector: the phase
// will be NoClusterSelected until a member with those labels joins. Empty when one matches (or
// the nodes cannot be listed: the offloading itself is still right).
std::string no_cluster_warning(kube::DynamicClient& host, const json& desired) {
  auto spec = fedapi::decode<fedapi::NamespaceOffloadingSpec>(desired["spec"], "spec");
  if (!spec) return "";
  kube::ListOptions options;
  options.label_selector = "kubectl-fed.io/type=virtual-node";
  auto nodes = host.list(kube::ResourceRef{{"", "v1", "nodes"}, "", "", ""}, options);
  if (!nodes) return "";
  const auto selector = spec->effective_cluster_selector();
  for (const auto& node : nodes->value("items", json::array())) {
    auto hit = offload::matches(selector, offload::facts_of(node), "--selector");
    if (hit && *hit) return "";
  }
  return "no virtual node matches the cluster selector (" +
         std::to_string(nodes->value("items", json::array()).size()) +
         " virtual nodes): the phase stays NoClusterSelected until a member with those labels "
         "joins";
}

namespace {

// What a live offloading lets this run change: not one being deleted, nor its mapping strategy.
Status check_change_allowed(const json& live, const json& desired, const OffloadOptions& o) {
  if (live["metadata"].contains("deletionTimestamp")) {
    return fail(ErrorCode::Conflict, "namespace " + o.namespace_name +
                                         " is being unoffloaded; wait for it, then offload again");
  }
  auto have =
      fedapi::decode<fedapi::NamespaceOffloadingSpec>(live.value("spec", json::object()), "spec");
  auto want = fedapi::decode<fedapi::NamespaceOffloadingSpec>(desired["spec"], "spec");
  if (have && want && have->namespace_mapping_strategy != want->namespace_mapping_strategy) {
    return fail(ErrorCode::Invalid,
                "--namespace-mapping-strategy: namespace " + o.namespace_name +
                    " is offloaded with " +
                    std::string(fedapi::to_string(have->namespace_mapping_strategy)) +
                    ", which cannot change; unoffload it first");
  }
  return ok();
}

}  // namespace

Status run_offload(const GlobalOptions& global, const OffloadOptions& o, Output& out) {
  // Every check but the remote name's length (which needs the host's id) before connecting.
  FED_TRY(offloading_from_flags(o, ""));
  FED_ASSIGN_OR_RETURN(auto connection, connect_leading_host(global));
  auto& host = connection.client;
  FED_ASSIGN_OR_RETURN(auto desired, offloading_from_flags(o, connection.cluster_id));
  const auto ns = host->get(kube::ResourceRef{{"", "v1", "namespaces"}, "", o.namespace_name, ""});
  if (!ns && ns.error().is_not_found()) {
    return fail(ErrorCode::NotFound,
                "namespace " + o.namespace_name + " does not exist on the host: create it first");
  }
  if (!ns) return ns.error().to_error();
  auto live = host->get(offloading_ref(o.namespace_name));
  if (!live && !live.error().is_not_found()) return live.error().to_error();
  if (live) FED_TRY(check_change_allowed(*live, desired, o));
  const std::string warning = no_cluster_warning(*host, desired);
  if (!warning.empty()) out.err() << "warning: " << warning << "\n";
  // A dry run has checked what the real run checks; it only writes nothing.
  if (o.dry_run == DryRun::Client) {
    const json grant = offload::reflection_grant(o.namespace_name);
    out.print(object_list({desired, grant}), [&](std::ostream& os) {
      os << object_label(desired) << " and " << object_label(grant) << " in " << o.namespace_name
         << " (dry run)\n";
    });
    return ok();
  }
  std::string result = "offloaded";
  if (live) {
    auto have = fedapi::decode<fedapi::NamespaceOffloadingSpec>(live->value("spec", json::object()),
                                                                "spec");
    auto want = fedapi::decode<fedapi::NamespaceOffloadingSpec>(desired["spec"], "spec");
    if (have && want && *have == *want) {
      result = "alreadyOffloaded";
    } else {
      json patch{{"spec", desired["spec"]}};
      if (!desired["spec"].contains("clusterSelector")) patch["spec"]["clusterSelector"] = nullptr;
      auto r = host->patch(offloading_ref(o.namespace_name), kube::PatchType::Merge, patch.dump());
      if (!r) return r.error().to_error();
      result = "updated";
    }
  } else {
    auto r = host->create(offloading_ref(o.namespace_name).collection(), desired);
    if (!r) return r.error().to_error();
  }
  FED_TRY(grant_reflection(*host, o.namespace_name));
  if (o.wait) {
    FED_TRY(wait_for_offloading(connection, o.namespace_name, ready_for_current_spec, o.timeout,
                                "the offloading of " + o.namespace_name, out));
  }
  auto now = host->get(offloading_ref(o.namespace_name));
  const json current = now ? *now : json::object();
  json doc{{"result", result},
           {"namespace", o.namespace_name},
           {"remoteNamespace", status_of(current).remote_namespace_name},
           {"phase", phase_of(current)},
           // As the API holds them: the conditions' own JSON, not a re-rendering.
           {"clusters", current.value("status", json::object())
                            .value("remoteNamespacesConditions", json::object())}};
  if (!warning.empty()) doc["warnings"] = json::array({warning});
  out.print(doc, [&](std::ostream& os) {
    os << "namespace " << o.namespace_name << " "
       << (result == "alreadyOffloaded" ? "already offloaded"
           : result == "updated"        ? "offloading updated"
                                        : "offloaded")
       << "\n";
    if (o.wait) {
      os << "phase " << doc["phase"].get<std::string>() << ": "
         << (now ? clusters_summary(*now) : std::string()) << "\n";
    }
  });
  return ok();
}

Status run_unoffload(const GlobalOptions& global, const UnoffloadOptions& o, Output& out) {
  FED_TRY(check_kind(o.kind));
  FED_ASSIGN_OR_RETURN(auto connection, connect_leading_host(global));
  auto& host = connection.client;
  auto live = host->get(offloading_ref(o.namespace_name));
  if (!live && !live.error().is_not_found()) return live.error().to_error();
  const std::string result = live ? "unoffloaded" : "notOffloaded";
  json doc{{"result", result}, {"namespace", o.namespace_name}};
  if (live) {
    if (o.force) {
      doc["pods"] = {{"mode", "force"}};
    } else {
      FED_ASSIGN_OR_RETURN(doc["pods"],
                           move_pods_home(*host, o.namespace_name, offloading_ref(o.namespace_name),
                                          o.timeout, out));
    }
    auto r = host->remove(offloading_ref(o.namespace_name));
    if (!r && !r.error().is_not_found()) return r.error().to_error();
    FED_TRY(revoke_reflection(*host, o.namespace_name));
    if (o.wait) {
      FED_TRY(wait_for_offloading(
          connection, o.namespace_name, [](const json& off) { return off.is_null(); }, o.timeout,
          "the unoffloading of " + o.namespace_name, out));
    }
  }
  out.print(doc, [&](std::ostream& os) {
    if (doc.contains("pods") && !doc["pods"].value("evicted", json::array()).empty()) {
      os << doc["pods"]["evicted"].size() << " pod(s) of " << o.namespace_name
         << " brought home from members\n";
    }
    os << "namespace " << o.namespace_name
       << (live ? (o.wait ? " unoffloaded: every replica is gone" : " is being unoffloaded")
                : " was not offloaded")
       << "\n";
  });
  return ok();
}

}  // namespace fed::plugin
