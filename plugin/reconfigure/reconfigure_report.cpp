#include "plugin/reconfigure/reconfigure_report.hpp"

#include <cmath>

#include "shared/reconfig/change_set.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

std::string compact(const json& j) {
  return j.is_null() ? "-" : j.dump();
}

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

}  // namespace

json rollout_json(const ReconfigurePlan& plan, const std::vector<ClusterResult>& results) {
  json clusters = json::array();
  bool all = true;
  for (const auto& c : results) {
    json nodes = json::array();
    for (const auto& n : c.nodes) {
      nodes.push_back({{"name", n.node},
                       {"result", std::string(to_string(n.outcome))},
                       {"phase", n.phase},
                       {"exitCode", n.exit_code},
                       {"message", n.message},
                       {"seconds", std::round(n.seconds * 10) / 10}});
    }
    json features = json::array();
    for (const auto& f : c.features) {
      features.push_back({{"name", f.name},
                          {"result", std::string(to_string(f.outcome))},
                          {"message", f.message},
                          {"seconds", std::round(f.seconds * 10) / 10}});
    }
    json cluster = {{"context", c.context},
                    {"succeeded", c.succeeded()},
                    {"features", features},
                    {"nodes", nodes}};
    if (c.error) cluster["error"] = c.error->message();
    all = all && c.succeeded();
    clusters.push_back(cluster);
  }
  json desired = reconfig::to_json(plan.changes);
  for (const auto& f : plan.features) desired[f] = true;
  if (plan.cni) desired["cni"] = plan.cni->rollback ? json("rollback") : json(plan.cni->network);
  return {{"apiVersion", "fed.kubectl-fed.io/v1alpha1"},
          {"kind", "ReconfigureResult"},
          {"desired", desired},
          {"succeeded", all},
          {"clusters", clusters}};
}

Table rollout_table(const std::vector<ClusterResult>& results) {
  Table t{{"CONTEXT", "NODE", "RESULT", "SECONDS", "MESSAGE"}, {}};
  for (const auto& c : results) {
    if (c.error) t.rows.push_back({c.context, "-", "Error", "-", c.error->message()});
    for (const auto& f : c.features) {
      t.rows.push_back({c.context, "feature " + f.name, std::string(to_string(f.outcome)),
                        std::to_string(static_cast<long>(std::lround(f.seconds))),
                        or_dash(f.message)});
    }
    for (const auto& n : c.nodes) {
      t.rows.push_back({c.context, n.node, std::string(to_string(n.outcome)),
                        std::to_string(static_cast<long>(std::lround(n.seconds))),
                        or_dash(n.message)});
    }
  }
  return t;
}

json status_json(const std::vector<ClusterStatus>& clusters) {
  json out = json::array();
  for (const auto& c : clusters) {
    json nodes = json::array();
    for (const auto& n : c.nodes) {
      json node = {{"name", n.node},         {"phase", n.phase},    {"desired", n.desired},
                   {"observed", n.observed}, {"inSync", n.in_sync}, {"message", n.message},
                   {"updated", n.updated}};
      if (!n.error.empty()) node["error"] = n.error;
      node["cni"] = n.cni_network.empty()
                        ? json(nullptr)
                        : json{{"network", n.cni_network}, {"probe", n.cni_probe}};
      nodes.push_back(node);
    }
    json features = json::array();
    for (const auto& f : c.features) {
      features.push_back({{"name", f.name},
                          {"installed", f.installed},
                          {"ready", f.ready},
                          {"message", f.message}});
    }
    json cluster = {{"context", c.context}, {"features", features}, {"nodes", nodes}};
    if (c.error) cluster["error"] = c.error->message();
    out.push_back(cluster);
  }
  return {{"apiVersion", "fed.kubectl-fed.io/v1alpha1"},
          {"kind", "ReconfigureStatus"},
          {"clusters", out}};
}

Table status_table(const std::vector<ClusterStatus>& clusters) {
  Table t{{"CONTEXT", "NODE", "PHASE", "IN-SYNC", "DESIRED", "OBSERVED", "CNI", "MESSAGE"}, {}};
  for (const auto& c : clusters) {
    if (c.error) {
      t.rows.push_back({c.context, "-", "Error", "-", "-", "-", "-", c.error->message()});
    }
    for (const auto& f : c.features) {
      if (!f.installed) continue;
      t.rows.push_back({c.context, "feature " + f.name, f.ready ? "Ready" : "NotReady", "-", "true",
                        "-", "-", or_dash(f.message)});
    }
    for (const auto& n : c.nodes) {
      const std::string sync = n.desired.is_null() ? "-" : (n.in_sync ? "yes" : "no");
      t.rows.push_back({c.context, n.node, or_dash(n.phase), sync, compact(n.desired),
                        compact(n.observed), or_dash(n.cni_network),
                        or_dash(n.error.empty() ? n.message : n.error)});
    }
  }
  return t;
}

Status rollout_status(const std::vector<ClusterResult>& results) {
  std::vector<std::string> bad;
  for (const auto& c : results) {
    if (c.error) return c.error->with_context("context " + c.context);
  }
  for (const auto& c : results) {
    for (const auto& f : c.features) {
      if (f.outcome == NodeOutcome::Failed) {
        bad.push_back(c.context + " feature " + f.name + " Failed: " + f.message);
      }
    }
    for (const auto& n : c.nodes) {
      if (n.outcome != NodeOutcome::Applied && n.outcome != NodeOutcome::AlreadyApplied &&
          n.outcome != NodeOutcome::Skipped) {
        bad.push_back(c.context + "/" + n.node + " " + std::string(to_string(n.outcome)));
      }
    }
  }
  if (bad.empty()) return ok();
  return Error(ErrorCode::Internal,
               "reconfiguration did not apply everywhere: " + util::join(bad, ", ") +
                   " (later nodes of those clusters were not touched)");
}

}  // namespace fed::plugin
