#include "plugin/membership/unjoin.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <thread>

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/connect/commit_wait.hpp"
#include "plugin/connect/leader_connection.hpp"
#include "plugin/membership/join_plan.hpp"
#include "plugin/membership/member_cleanup.hpp"
#include "plugin/membership/membership_validation.hpp"
#include "plugin/reconfigure/node_drain.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/nat_mapping.hpp"
#include "shared/offload/virtual_node_name.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

constexpr std::string_view kFinalizer = "kubectl-fed.io/membership";

Runner wire_unjoin(CLI::App& app) {
  auto o = std::make_shared<UnjoinOptions>();
  auto timeout = std::make_shared<std::string>("3m");
  app.add_option("member", o->member, "The member to remove");
  app.add_option("--member-context", o->member_flags.context,
                 "The member's context in your kubeconfig (default: the context named MEMBER)");
  app.add_option("--member-kubeconfig", o->member_flags.kubeconfig,
                 "A kubeconfig file for the member");
  app.add_flag("--force", o->force,
               "Do not move the pods off the member first nor wait for the manager's teardown; "
               "also go on when the member is gone");
  app.add_option("--timeout", *timeout, "How long to wait for each teardown step (default 3m)");
  return [o, timeout](const GlobalOptions& global, Output& out) -> Status {
    FED_ASSIGN_OR_RETURN(o->timeout, parse_timeout_flag(*timeout, "--timeout"));
    return run_unjoin(global, *o, out);
  };
}

Status remove_if_present(kube::DynamicClient& c, const kube::ResourceRef& ref) {
  auto r = c.remove(ref);
  if (r || r.error().is_not_found()) return ok();
  return fail(r.error().code(),
              "deleting " + ref.to_string() + ": " + r.error().to_error().message());
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Moves the member's pods off it while its data path still carries their traffic: cordons its
// virtual node, evicts its pods (PodDisruptionBudgets respected: an eviction a budget refuses
// is retried until the timeout) and waits until the workloads they belonged to are ready
// elsewhere. A host pod evicted goes out of its Services' endpoints before its twin stops
// (docs/OFFLOAD.md), so no request is sent to a pod that is going. On failure the node is
// uncordoned and nothing has been torn down.
Result<json> move_pods_off(kube::DynamicClient& host, const UnjoinOptions& o, Output& out) {
  const std::string node = offload::virtual_node_name(o.member);
  const auto start = std::chrono::steady_clock::now();
  json report{{"mode", "graceful"}, {"node", node}, {"evicted", json::array()}};
  auto cordoned = cordon(host, node);
  if (!cordoned) {
    if (cordoned.error().code() == ErrorCode::NotFound) return report;  // never offloaded to
    return Unexpected(cordoned.error().with_context("cordoning " + node));
  }
  auto moved = move_pods(host, PodScope{"node " + node, "", "spec.nodeName=" + node, {}},
                         start + o.timeout, [&](const std::string& s) { out.progress(s); });
  if (!moved) {
    if (*cordoned) (void)uncordon(host, node);
    return fail(moved.error().code(),
                "unjoin " + o.member + " stopped before anything was torn down: " +
                    moved.error().message() + " (--force leaves without moving the pods)");
  }
  report.update(*moved);
  return report;
}

// Deletes the FederatedCluster; without --force waits for the manager's finalizer, with it
// removes the finalizer and the host's Peering and NatMapping itself. False when there was none.
Result<bool> delete_federated_cluster(kube::DynamicClient& host, const UnjoinOptions& o,
                                      Output& out) {
  const auto ref = fedapi::ref(fedapi::kFederatedCluster, o.member);
  auto fc = host.get(ref);
  if (!fc) {
    if (fc.error().is_not_found()) return false;
    return fail(fc.error().code(), fc.error().to_error().message());
  }
  FED_TRY(remove_if_present(host, ref));
  if (o.force) {
    auto r = host.patch(ref, kube::PatchType::Merge, R"({"metadata":{"finalizers":null}})");
    if (!r && !r.error().is_not_found()) return r.error().to_error();
    FED_TRY(remove_if_present(host, fedapi::ref(fedapi::kPeering, o.member)));
    FED_TRY(fedapi::remove_nat_mappings(host, o.member));
    return true;
  }
  out.progress("waiting for the manager to tear down the peering with " + o.member + "...");
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;
  while (true) {
    auto got = host.get(ref);
    if (!got && got.error().is_not_found()) return true;
    if (std::chrono::steady_clock::now() >= deadline) {
      return fail(ErrorCode::Unavailable, "FederatedCluster " + o.member +
                                              " still waits for the manager's teardown "
                                              "(finalizer " +
                                              std::string(kFinalizer) +
                                              "): is fed-manager running? "
                                              "Re-run with --force to skip it");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

const Command kUnjoinCommand{
    .name = "unjoin",
    .summary = "Remove a member from the federation and kubectl-fed from the member",
    .description =
        "Move the pods off MEMBER first, as kubectl drain does: cordon its virtual node, evict "
        "its pods (PodDisruptionBudgets respected) and wait until their workloads are ready "
        "elsewhere; a budget that does not allow it within --timeout stops the unjoin with "
        "nothing torn down. Then delete the FederatedCluster MEMBER on the host (the current "
        "context) and wait for the manager to tear the peering down on both sides, then delete "
        "everything labelled "
        "app.kubernetes.io/part-of=kubectl-fed on the member (the agent's preStop uninstalls "
        "its routes and NAT first), then the member's credential Secret on the host. The member "
        "is reached with --member-context/--member-kubeconfig, by default the context named "
        "MEMBER. --force moves no pod, skips waiting for the manager and goes on when the member "
        "is "
        "gone.",
    .usage =
        "unjoin MEMBER [--member-context CTX | --member-kubeconfig FILE] [--force] "
        "[--timeout D] [flags]",
    .examples =
        "  # Remove c3 from the federation hosted by c1\n"
        "  kubectl fed unjoin c3 --context c1 --member-context c3\n"
        "\n"
        "  # The manager is down or the member is gone for good\n"
        "  kubectl fed unjoin c3 --context c1 --force\n",
    .arg_values = {},
    .wire = wire_unjoin,
};

Status run_unjoin(const GlobalOptions& global, const UnjoinOptions& o, Output& out) {
  if (o.member.empty()) {
    return fail(ErrorCode::Invalid, "unjoin needs the MEMBER name, e.g. kubectl fed unjoin c3");
  }
  FED_TRY(validate_cluster_id(o.member, "MEMBER"));
  FED_ASSIGN_OR_RETURN(auto connection, connect_leader_host(global, out.err()));
  auto& host = connection.client;
  const std::string host_id = connection.cluster_id;
  const std::string& federation = connection.federation_id;

  // Connect first: an unreachable member must not leave a half-done unjoin behind, unless
  // --force says the member is gone.
  auto member = connect_member(global, o.member_flags, o.member, o.member);
  if (!member && !o.force) return std::move(member).error();
  // And check it is that member before anything is deleted on either side.
  if (member) {
    FED_ASSIGN_OR_RETURN(auto identity, fetch_identity(*member->client));
    FED_TRY(check_unjoin_target(identity, o.member, federation, o.force));
  }

  json doc{{"member", o.member}, {"federation", federation}, {"deleted", json::array()}};
  if (o.force) {
    doc["workload"] = {{"mode", "force"}};
  } else {
    FED_ASSIGN_OR_RETURN(doc["workload"], move_pods_off(*host, o, out));
  }
  const auto teardown = std::chrono::steady_clock::now();
  FED_ASSIGN_OR_RETURN(auto had_fc, delete_federated_cluster(*host, o, out));
  if (had_fc) {
    FED_TRY(wait_committed(connection, fedapi::ref(fedapi::kFederatedCluster, o.member), out));
    doc["deleted"].push_back({{"cluster", host_id}, {"object", "federatedcluster/" + o.member}});
  }

  if (member) {
    out.progress("Removing kubectl-fed from " + o.member + "...");
    FED_ASSIGN_OR_RETURN(auto deleted, remove_labelled(*member->client, o.timeout, out));
    for (const auto& d : deleted) doc["deleted"].push_back({{"cluster", o.member}, {"object", d}});
  } else {
    doc["memberUnreachable"] = member.error().message();
  }
  const kube::ResourceRef secret = credential_secret_ref(o.member);
  auto gone = host->remove(secret);
  if (gone) {
    FED_TRY(wait_committed(connection, secret, out));
    doc["deleted"].push_back(
        {{"cluster", host_id}, {"object", "secrets/" + secret.ns + "/" + secret.name}});
  } else if (!gone.error().is_not_found()) {
    return fail(gone.error().code(), "deleting " + secret.to_string() +
                                         " on the host: " + gone.error().to_error().message());
  }

  if (!member) out.err() << "warning: " << member.error().message() << "; its objects are left\n";
  doc["teardownSeconds"] = seconds_since(teardown);
  out.print(doc, [&](std::ostream& os) {
    const json& w = doc["workload"];
    if (w["mode"] == "force") {
      os << "pods on " << o.member << " not moved (--force)\n";
    } else if (!w["evicted"].empty()) {
      os << w["evicted"].size() << " pod(s) moved off " << w["node"].get<std::string>() << " in "
         << fmt::format("{:.1f}", w.value("evictSeconds", 0.0)) << " s, replacements ready "
         << fmt::format("{:.1f}", w.value("replacementsReadySeconds", 0.0)) << " s later\n";
    }
    for (const auto& d : doc["deleted"]) {
      os << d["cluster"].get<std::string>() << ": " << d["object"].get<std::string>()
         << " deleted\n";
    }
    os << "member " << o.member << " left federation " << federation << " (teardown "
       << fmt::format("{:.1f}", doc["teardownSeconds"].get<double>()) << " s)\n";
  });
  return ok();
}

}  // namespace fed::plugin
