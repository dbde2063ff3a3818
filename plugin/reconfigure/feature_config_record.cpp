#include "plugin/reconfigure/feature_config_record.hpp"

#include <chrono>

#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

kube::ResourceRef ref(const std::string& name) {
  return fedapi::ref(fedapi::kFeatureConfig, name);
}

std::string now() {
  return util::format_rfc3339(std::chrono::system_clock::now());
}

// Applied, RolledBack or Failed, from the outcomes of one member or all of them.
std::string phase_of(bool succeeded, bool rolled_back) {
  if (succeeded) return "Applied";
  return rolled_back ? "RolledBack" : "Failed";
}

bool any_rolled_back(const ClusterResult& c) {
  for (const auto& n : c.nodes) {
    if (n.outcome == NodeOutcome::RolledBack) return true;
  }
  return false;
}

bool any_failed(const ClusterResult& c) {
  if (c.error) return true;
  for (const auto& n : c.nodes) {
    if (n.outcome == NodeOutcome::Failed) return true;
  }
  for (const auto& f : c.features) {
    if (f.outcome == NodeOutcome::Failed) return true;
  }
  return false;
}

// The first thing that went wrong in a member, "" when nothing did.
std::string message_of(const ClusterResult& c) {
  if (c.error) return c.error->message();
  for (const auto& f : c.features) {
    if (f.outcome == NodeOutcome::Failed) return "feature " + f.name + ": " + f.message;
  }
  for (const auto& n : c.nodes) {
    if (n.outcome == NodeOutcome::Failed || n.outcome == NodeOutcome::RolledBack) {
      return n.node + ": " + n.message;
    }
  }
  return "";
}

Status patch_status(kube::DynamicClient& host, const std::string& name, const json& status) {
  auto r = host.patch_status(ref(name), kube::PatchType::Merge, json{{"status", status}}.dump());
  if (!r) return r.error().to_error().with_context("FeatureConfig " + name + " status");
  return ok();
}

}  // namespace

json feature_config_status(const std::vector<ClusterResult>& results, std::int64_t generation,
                           const json& previous, const std::string& when) {
  json clusters = json::array();
  int applied = 0;
  bool rolled_back = false, failed = false;
  for (const auto& c : results) {
    json nodes = json::array();
    for (const auto& n : c.nodes) {
      nodes.push_back(
          {{"name", n.node}, {"phase", std::string(to_string(n.outcome))}, {"message", n.message}});
    }
    const bool ok = c.succeeded();
    applied += ok ? 1 : 0;
    rolled_back = rolled_back || any_rolled_back(c);
    failed = failed || any_failed(c);
    clusters.push_back({{"name", c.context},
                        {"phase", phase_of(ok, any_rolled_back(c) && !any_failed(c))},
                        {"message", message_of(c)},
                        {"nodes", nodes},
                        {"lastUpdateTime", when}});
  }
  const bool all = applied == static_cast<int>(results.size());
  const std::string phase = phase_of(all, rolled_back && !failed);
  auto conditions = fedapi::read_conditions(previous);
  fedapi::Condition condition{"Applied",
                              all ? "True" : "False",
                              phase,
                              all ? "every selected member runs the desired features"
                                  : std::to_string(results.size() - applied) + " of " +
                                        std::to_string(results.size()) +
                                        " member(s) did not apply (status.clusters)",
                              "",
                              generation};
  fedapi::set_condition(conditions, condition, when);
  json status = {{"phase", phase},
                 {"observedGeneration", generation},
                 {"appliedClusters", applied},
                 {"clusters", clusters}};
  fedapi::write_conditions(status, conditions);
  return status;
}

Result<std::int64_t> record_start(kube::DynamicClient& host, const json& feature_config,
                                  const std::vector<std::string>& members) {
  const std::string name = feature_config["metadata"].value("name", "");
  json object = {{"apiVersion", std::string(fedapi::kApiVersion)},
                 {"kind", "FeatureConfig"},
                 {"metadata", {{"name", name}}},
                 {"spec", feature_config.value("spec", json::object())}};
  for (const char* field : {"labels", "annotations"}) {
    if (feature_config["metadata"].contains(field)) {
      object["metadata"][field] = feature_config["metadata"][field];
    }
  }
  auto applied = host.apply(ref(name), object, kube::ApplyOptions{"kubectl-fed", true, false});
  if (!applied) {
    return applied.error().to_error().with_context(
        "recording FeatureConfig " + name + " on the host (kubectl fed init installs its CRD)");
  }
  const std::int64_t generation = (*applied)["metadata"].value("generation", std::int64_t{0});
  json clusters = json::array();
  for (const auto& m : members) clusters.push_back({{"name", m}, {"phase", "Progressing"}});
  FED_TRY(patch_status(
      host, name,
      {{"phase", "Progressing"}, {"observedGeneration", generation}, {"clusters", clusters}}));
  return generation;
}

Status record_result(kube::DynamicClient& host, const std::string& name,
                     const std::vector<ClusterResult>& results, std::int64_t generation) {
  auto current = host.get(ref(name));
  const json previous = current ? current->value("status", json::object()) : json::object();
  return patch_status(host, name, feature_config_status(results, generation, previous, now()));
}

}  // namespace fed::plugin
