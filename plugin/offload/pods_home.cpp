#include "plugin/offload/pods_home.hpp"

#include "plugin/reconfigure/node_drain.hpp"
#include "shared/offload/virtual_node_name.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

bool on_virtual_node(const json& pod) {
  const std::string node = pod.value("spec", json::object()).value("nodeName", "");
  return node.starts_with(offload::kVirtualNodePrefix);
}

Status set_strategy(kube::DynamicClient& host, const kube::ResourceRef& offloading,
                    const std::string& strategy) {
  const json patch{{"spec", {{"podOffloadingStrategy", strategy}}}};
  auto r = host.patch(offloading, kube::PatchType::Merge, patch.dump());
  if (!r && !r.error().is_not_found()) return r.error().to_error();
  return ok();
}

}  // namespace

Result<json> move_pods_home(kube::DynamicClient& host, const std::string& ns,
                            const kube::ResourceRef& offloading, std::chrono::milliseconds timeout,
                            Output& out) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  json report{{"mode", "graceful"}, {"evicted", json::array()}};
  auto live = host.get(offloading);
  if (!live) return live.error().to_error();
  const std::string before = (*live)["spec"].value("podOffloadingStrategy", "LocalAndRemote");
  const PodScope scope{"namespace " + ns + " on virtual nodes", ns, "", on_virtual_node};
  // Nothing placed remotely: the strategy stays as it is.
  kube::ListOptions list;
  auto pods = host.list_all(kube::ResourceRef{{"", "v1", "pods"}, ns, "", ""}, list);
  if (!pods) return pods.error().to_error();
  bool remote = false;
  for (const auto& p : (*pods)["items"]) remote = remote || on_virtual_node(p);
  if (!remote) return report;

  if (before != "Local") FED_TRY(set_strategy(host, offloading, "Local"));
  auto moved = move_pods(host, scope, deadline, [&](const std::string& s) { out.progress(s); });
  if (!moved) {
    if (before != "Local") (void)set_strategy(host, offloading, before);
    return fail(moved.error().code(),
                "unoffload of " + ns + " stopped before any replica was deleted: " +
                    moved.error().message() + " (--force deletes them with their pods)");
  }
  report.update(*moved);
  return report;
}

}  // namespace fed::plugin
