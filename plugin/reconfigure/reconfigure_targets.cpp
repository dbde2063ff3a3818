#include "plugin/reconfigure/reconfigure_targets.hpp"

#include <algorithm>

#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/rest_config.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

std::string label(const std::string& context) {
  return context.empty() ? "(current context)" : context;
}

// The members of a FederatedClusterList (the host's own entry, role host, is not one) with
// their cluster labels. Read leniently: one odd entry must not hide the others.
std::vector<std::pair<std::string, kube::Labels>> members_of(const json& list) {
  std::vector<std::pair<std::string, kube::Labels>> out;
  for (const auto& item : list.value("items", json::array())) {
    const json spec = item.value("spec", json::object());
    if (spec.value("role", "") == "host") continue;
    kube::Labels labels;
    const json given = spec.value("clusterLabels", json::object());
    for (const auto& [k, v] : given.items()) {
      if (v.is_string()) labels[k] = v.get<std::string>();
    }
    out.emplace_back(item.value("metadata", json::object()).value("name", ""), labels);
  }
  return out;
}

// "c2 {region=eu}, c3 {}": what the members offer to select on.
std::string describe_members(const json& list) {
  std::vector<std::string> out;
  for (const auto& [name, labels] : members_of(list)) {
    std::vector<std::string> pairs;
    for (const auto& [k, v] : labels) pairs.push_back(k + "=" + v);
    out.push_back(name + " {" + util::join(pairs, ",") + "}");
  }
  return out.empty() ? "none joined" : util::join(out, ", ");
}

}  // namespace

std::vector<std::string> select_members(const json& list, const kube::LabelSelector& selector) {
  std::vector<std::string> names;
  for (const auto& [name, labels] : members_of(list)) {
    if (selector.matches(labels)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::shared_ptr<kube::DynamicClient>> client_for(const GlobalOptions& global,
                                                        const std::string& context) {
  GlobalOptions one = global;
  one.context = context;
  FED_ASSIGN_OR_RETURN(auto config, rest_config_for(one));
  return kube::DynamicClient::create(std::move(config));
}

Result<Targets> resolve_targets(const GlobalOptions& global,
                                const std::optional<std::string>& selector, std::ostream& notes) {
  Targets t;
  if (!selector) {
    t.contexts =
        global.contexts.empty() ? std::vector<std::string>{global.context} : global.contexts;
    for (const auto& c : t.contexts) t.labels.push_back(label(c));
    return t;
  }
  if (global.contexts.size() > 1) {
    return Error(ErrorCode::Invalid,
                 "--clusters picks members of the federation whose host is --context: give one "
                 "--context (the host), not " +
                     std::to_string(global.contexts.size()));
  }
  FED_ASSIGN_OR_RETURN(t.host, connect_leader_host(global, notes));
  const std::string host_label = "host " + t.host->cluster_id;
  auto list = t.host->client->list_all(
      kube::ResourceRef{fedapi::gvr(fedapi::kFederatedCluster), "", "", ""});
  if (!list)
    return list.error().to_error().with_context(host_label + ": listing FederatedClusters");
  FED_ASSIGN_OR_RETURN(auto parsed, kube::LabelSelector::parse(*selector));
  t.contexts = select_members(*list, parsed);
  if (t.contexts.empty()) {
    return Error(ErrorCode::NotFound, "no member of " + host_label + " matches --clusters \"" +
                                          *selector + "\" (members: " + describe_members(*list) +
                                          ")");
  }
  // Every context before any change: a run never stops half-way for a typo in a kubeconfig.
  for (const auto& member : t.contexts) {
    GlobalOptions one = global;
    one.context = member;
    if (auto config = rest_config_for(one); !config) {
      return Error(config.error().code(),
                   "member " + member + ": " + config.error().message() +
                       "; kubectl fed reaches a member through the kubeconfig context named "
                       "after it (kubectl config rename-context OLD " +
                       member + ")");
    }
    t.labels.push_back(member);
  }
  return t;
}

}  // namespace fed::plugin
