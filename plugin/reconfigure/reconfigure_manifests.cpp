#include "plugin/reconfigure/reconfigure_manifests.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>

namespace fed::plugin {
namespace {

using nlohmann::json;

constexpr std::string_view kRoleName = "kubectl-fed:reconfigure-node";
// The agent's pod has no PATH of its own beyond the image's; nsenter and fed-agent live here.
constexpr std::string_view kPath = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin";

json labels() {
  return {{std::string(kPartOfLabel), "kubectl-fed"},
          {std::string(kComponentLabel), std::string(kReconfigureComponent)}};
}

json metadata(std::string_view name, bool namespaced) {
  json m = {{"name", std::string(name)}, {"labels", labels()}};
  if (namespaced) m["namespace"] = std::string(kReconfigureNamespace);
  return m;
}

// The host directories the agent writes: the config file's directory (the atomic rewrite puts
// a temporary file beside it), or the drop-in directory, and the root dir (checkpoints). A
// directory under another one is not mounted twice.
std::vector<std::string> host_dirs(const ReconfigurePlan& plan, std::string_view node) {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  if (plan.cni) {
    dirs.push_back(for_node(plan.cni->conf_dir, node));
  } else if (plan.target.discovers()) {
    return dirs;  // the agent reaches the kubelet's files through its process (hostPID)
  } else if (!plan.target.kubelet_config_dir.empty()) {
    dirs.push_back(for_node(plan.target.kubelet_config_dir, node));
  } else {
    dirs.push_back(fs::path(for_node(plan.target.kubelet_config, node)).parent_path().string());
  }
  if (!plan.cni) dirs.push_back(for_node(plan.target.root_dir, node));
  for (auto& d : dirs) {
    while (d.size() > 1 && d.back() == '/') d.pop_back();
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<std::string> kept;
  for (const auto& d : dirs) {
    const bool covered = std::any_of(kept.begin(), kept.end(), [&](const std::string& k) {
      return d == k || (d.rfind(k + "/", 0) == 0) || k == "/";
    });
    if (!covered) kept.push_back(d);
  }
  return kept;
}

}  // namespace

json reconfigure_namespace() {
  // As manifests/namespace.yaml (the federation's install uses the same namespace): the agent's
  // pods are privileged, so the namespace admits privileged pods.
  json meta = {{"name", std::string(kReconfigureNamespace)},
               {"labels",
                {{std::string(kPartOfLabel), "kubectl-fed"},
                 {"pod-security.kubernetes.io/enforce", "privileged"}}}};
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", meta}};
}
std::vector<json> reconfigure_rbac() {
  const std::string account(kReconfigureAccount);
  json account_obj = {{"apiVersion", "v1"},
                      {"kind", "ServiceAccount"},
                      {"metadata", metadata(kReconfigureAccount, true)}};
  // Exactly what reconfigure-node calls: GET and merge PATCH of its own Node (progress
  // annotations) and GET of the kubelet's /healthz and /configz through the node proxy.
  json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "ClusterRole"},
               {"metadata", metadata(kRoleName, false)},
               {"rules",
                {{{"apiGroups", {""}}, {"resources", {"nodes"}}, {"verbs", {"get", "patch"}}},
                 {{"apiGroups", {""}}, {"resources", {"nodes/proxy"}}, {"verbs", {"get"}}}}}};
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "ClusterRoleBinding"},
                  {"metadata", metadata(kRoleName, false)},
                  {"roleRef",
                   {{"apiGroup", "rbac.authorization.k8s.io"},
                    {"kind", "ClusterRole"},
                    {"name", std::string(kRoleName)}}},
                  {"subjects",
                   {{{"kind", "ServiceAccount"},
                     {"name", account},
                     {"namespace", std::string(kReconfigureNamespace)}}}}};
  return {account_obj, role, binding};
}

std::string agent_pod_name(std::string_view node) {
  return node_pod_name("reconfigure-", node);
}

std::string node_pod_name(std::string_view prefix, std::string_view node) {
  std::string name = std::string(prefix) + std::string(node);
  if (name.size() <= 63) return name;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string_view>{}(node));
  return name.substr(0, 63 - 9) + "-" + std::string(hash, 8);
}

std::vector<std::string> agent_command(const ReconfigurePlan& plan, std::string_view node) {
  if (plan.cni) {
    std::vector<std::string> cmd = {
        "/usr/local/bin/fed-agent", "cni-switch",     "--node",
        std::string(node),          "--cni-conf-dir", for_node(plan.cni->conf_dir, node)};
    if (plan.cni->rollback) {
      cmd.push_back("--rollback");
    } else {
      cmd.push_back("--conflist");
      cmd.push_back(for_node(plan.cni->conflist, node));
    }
    return cmd;
  }
  std::vector<std::string> cmd = {"/usr/local/bin/fed-agent", "reconfigure-node", "--node",
                                  std::string(node)};
  for (const auto& item : plan.set_items) {
    cmd.push_back("--set");
    cmd.push_back(item);
  }
  if (!plan.target.kubelet_config_dir.empty()) {
    cmd.push_back("--kubelet-config-dir");
    cmd.push_back(for_node(plan.target.kubelet_config_dir, node));
  } else if (!plan.target.kubelet_config.empty()) {
    cmd.push_back("--kubelet-config");
    cmd.push_back(for_node(plan.target.kubelet_config, node));
  }
  if (!plan.target.root_dir.empty()) {
    cmd.push_back("--kubelet-root-dir");
    cmd.push_back(for_node(plan.target.root_dir, node));
  }
  if (!plan.target.distribution.empty()) {
    cmd.push_back("--distribution");  // the kubelet's unit, and k3s' own restart
    cmd.push_back(plan.target.distribution);
  }
  if (!plan.target.restart_command.empty()) {
    cmd.push_back("--restart-command");
    cmd.push_back(for_node(plan.target.restart_command, node));
  }
  cmd.push_back("--timeout");
  cmd.push_back(std::to_string(plan.gate_timeout.count()) + "s");
  return cmd;
}

json agent_pod(const ReconfigurePlan& plan, std::string_view node, std::string_view api_endpoint) {
  json mounts = json::array();
  json volumes = json::array();
  int i = 0;
  for (const auto& dir : host_dirs(plan, node)) {
    const std::string name = "host-" + std::to_string(i++);
    mounts.push_back({{"name", name}, {"mountPath", dir}});
    volumes.push_back({{"name", name}, {"hostPath", {{"path", dir}, {"type", "Directory"}}}});
  }
  json env = json::array({{{"name", "PATH"}, {"value", std::string(kPath)}}});
  if (const auto colon = api_endpoint.rfind(':'); colon != std::string_view::npos) {
    env.push_back({{"name", "KUBERNETES_SERVICE_HOST"},
                   {"value", std::string(api_endpoint.substr(0, colon))}});
    env.push_back({{"name", "KUBERNETES_SERVICE_PORT"},
                   {"value", std::string(api_endpoint.substr(colon + 1))}});
  }
  json meta = metadata(agent_pod_name(node), true);
  meta["annotations"] = {{std::string(kNodeAnnotation), std::string(node)}};
  // privileged: nsenter into PID 1's mount namespace and the kubelet's cgroups; the root
  // filesystem stays read-only, the agent writes only to the mounted host directories. The CNI
  // switch writes one root-owned directory as root and needs no capability at all.
  const json security = plan.cni ? json{{"privileged", false},
                                        {"allowPrivilegeEscalation", false},
                                        {"runAsUser", 0},
                                        {"capabilities", {{"drop", {"ALL"}}}},
                                        {"readOnlyRootFilesystem", true}}
                                 : json{{"privileged", true}, {"readOnlyRootFilesystem", true}};
  json container = {{"name", "reconfigure-node"},
                    {"image", plan.image},
                    {"imagePullPolicy", "IfNotPresent"},
                    {"command", agent_command(plan, node)},
                    {"env", env},
                    {"securityContext", security},
                    {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "32Mi"}}}}},
                    {"terminationMessagePolicy", "FallbackToLogsOnError"},
                    {"volumeMounts", mounts}};
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", meta},
              {"spec",
               {{"nodeName", std::string(node)},
                {"restartPolicy", "Never"},
                {"hostPID", true},
                {"hostNetwork", true},
                {"dnsPolicy", "ClusterFirstWithHostNet"},
                {"serviceAccountName", std::string(kReconfigureAccount)},
                {"terminationGracePeriodSeconds", 30},
                // The cordon's NoSchedule taint, and the NotReady window of the kubelet restart
                // (the taint manager must not evict the pod that is restarting the kubelet).
                {"tolerations",
                 {{{"operator", "Exists"}, {"effect", "NoSchedule"}},
                  {{"key", "node.kubernetes.io/not-ready"},
                   {"operator", "Exists"},
                   {"effect", "NoExecute"}},
                  {{"key", "node.kubernetes.io/unreachable"},
                   {"operator", "Exists"},
                   {"effect", "NoExecute"}}}},
                {"containers", {container}},
                {"volumes", volumes}}}};
  if (plan.cni) {
    // It only writes a file: no process of the host to enter, no API to call.
    pod["spec"]["hostPID"] = false;
    pod["spec"].erase("serviceAccountName");
    pod["spec"]["automountServiceAccountToken"] = false;
  }
  return pod;
}

}  // namespace fed::plugin
