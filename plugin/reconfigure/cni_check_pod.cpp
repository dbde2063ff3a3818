#include "plugin/reconfigure/cni_check_pod.hpp"

#include <thread>

#include "plugin/reconfigure/reconfigure_manifests.hpp"
#include "shared/net/net_types.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

kube::ResourceRef probe_ref(std::string_view node) {
  return kube::ResourceRef{{"", "v1", "pods"},
                           std::string(kReconfigureNamespace),
                           node_pod_name("cni-probe-", node),
                           ""};
}

std::string rollback_hint(const CniSwitchPlan& cni) {
  return "kubectl fed reconfigure --cni-conf-dir " + cni.conf_dir +
         " --rollback restores the old network";
}

}  // namespace

json cni_probe_pod(const std::string& image, std::string_view node) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", node_pod_name("cni-probe-", node)},
            {"namespace", std::string(kReconfigureNamespace)},
            {"labels",
             {{std::string(kPartOfLabel), "kubectl-fed"},
              {std::string(kComponentLabel), "cni-probe"}}}}},
          {"spec",
           {{"nodeName", std::string(node)},
            {"restartPolicy", "Never"},
            {"automountServiceAccountToken", false},
            {"terminationGracePeriodSeconds", 0},
            {"tolerations", {{{"operator", "Exists"}, {"effect", "NoSchedule"}}}},
            {"containers",
             {{{"name", "probe"},
               {"image", image},
               {"imagePullPolicy", "IfNotPresent"},
               {"command",
                // Only its address is read: it runs for a minute and listens on nothing.
                {"/usr/local/bin/fed-agent", "probe", "--for", "60s"}},
               {"securityContext",
                {{"allowPrivilegeEscalation", false},
                 {"readOnlyRootFilesystem", true},
                 {"capabilities", {{"drop", {"ALL"}}}}}},
               {"resources", {{"requests", {{"cpu", "5m"}, {"memory", "8Mi"}}}}}}}}}}};
}

std::string probe_ip_problem(const CniSwitchPlan& cni, const std::string& ip) {
  if (ip.empty()) return "the new pod got no address";
  if (cni.rollback || cni.subnets.empty()) return "";
  auto address = net::Ipv4::parse(ip);
  if (!address) return "the new pod's address " + ip + " is not IPv4";
  for (const auto& subnet : cni.subnets) {
    auto range = net::Cidr::parse(subnet);
    if (range && range->contains(*address)) return "";
  }
  return "a new pod got " + ip + ", not an address of network " + cni.network + " (" +
         util::join(cni.subnets, ", ") + "): the runtime does not use it";
}

Result<std::string> probe_cni(kube::DynamicClient& c, const ReconfigurePlan& plan,
                              const std::string& node, std::chrono::seconds timeout) {
  const CniSwitchPlan& cni = *plan.cni;
  const auto ref = probe_ref(node);
  (void)c.remove(ref);  // one an interrupted run left
  for (int i = 0; i < 60 && c.get(ref); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  if (auto created = c.create(ref.collection(), cni_probe_pod(plan.image, node)); !created) {
    return created.error().to_error().with_context("creating the CNI probe pod");
  }
  std::string ip;
  std::string phase;
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    auto pod = c.get(ref);
    if (pod) {
      ip = (*pod)["status"].value("podIP", "");
      phase = (*pod)["status"].value("phase", "");
      if (!ip.empty() || phase == "Failed") break;
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  (void)c.remove(ref);
  std::string problem = probe_ip_problem(cni, ip);
  if (ip.empty()) {
    problem += " within " + std::to_string(timeout.count()) + "s (pod " + ref.name + " " +
               (phase.empty() ? "Pending" : phase) + ")";
  }
  if (!problem.empty()) {
    return Error(ErrorCode::Unavailable, problem + (cni.rollback ? "" : "; " + rollback_hint(cni)));
  }
  return cni.rollback ? "a new pod got " + ip + " from the node's previous network"
                      : "a new pod got " + ip + " from network " + cni.network;
}

}  // namespace fed::plugin
