// The node agent's Pod and RBAC: exactly the privileges reconfigure-node needs, pinned to the
// node, the kubelet's directories mounted where the agent looks for them.

#include "plugin/reconfigure/reconfigure_manifests.hpp"

#include <doctest/doctest.h>

#include "plugin/reconfigure/cni_check_pod.hpp"
#include "plugin/reconfigure/node_drain.hpp"

using namespace fed::plugin;
using nlohmann::json;

namespace {

ReconfigurePlan testbed_plan() {
  ReconfigureOptions o;
  o.set = {"cpuManagerPolicy=static", "reservedSystemCPUs=0"};
  o.kubelet_config = "/var/lib/fedtb/c2/{node}/kubelet-config.yaml";
  o.kubelet_root_dir = "/var/lib/fedtb/c2/{node}/kubelet";
  o.restart_command = "nsenter -t 1 -m -- /repo/scripts/testbed restart-kubelet c2 {node}";
  o.timeout = "90s";
  auto plan = make_plan(o, "");
  REQUIRE(plan);
  return *plan;
}

}  // namespace

TEST_CASE("the agent pod is pinned, privileged as needed and runs reconfigure-node") {
  const json pod = agent_pod(testbed_plan(), "node2");
  CHECK(pod["metadata"]["name"] == "reconfigure-node2");
  CHECK(pod["metadata"]["namespace"] == "kubectl-fed-system");
  CHECK(pod["metadata"]["labels"]["app.kubernetes.io/part-of"] == "kubectl-fed");
  const json& spec = pod["spec"];
  CHECK(spec["nodeName"] == "node2");
  CHECK(spec["restartPolicy"] == "Never");
  CHECK(spec["hostPID"] == true);
  CHECK(spec["hostNetwork"] == true);
  CHECK_FALSE(spec.contains("hostIPC"));
  CHECK(spec["serviceAccountName"] == "kubectl-fed-reconfigure");
  REQUIRE(spec["containers"].size() == 1);
  const json& c = spec["containers"][0];
  CHECK(c["securityContext"] == json{{"privileged", true}, {"readOnlyRootFilesystem", true}});
  CHECK(c["command"] == json{"/usr/local/bin/fed-agent", "reconfigure-node", "--node", "node2",
                             "--set", "cpuManagerPolicy=static", "--set", "reservedSystemCPUs=0",
                             "--kubelet-config", "/var/lib/fedtb/c2/node2/kubelet-config.yaml",
                             "--kubelet-root-dir", "/var/lib/fedtb/c2/node2/kubelet",
                             "--restart-command",
                             "nsenter -t 1 -m -- /repo/scripts/testbed restart-kubelet c2 node2",
                             "--timeout", "90s"});
  // The config's directory holds the root dir: one mount, at the same path, must exist.
  CHECK(c["volumeMounts"] ==
        json::array({{{"name", "host-0"}, {"mountPath", "/var/lib/fedtb/c2/node2"}}}));
  CHECK(
      spec["volumes"] ==
      json::array({{{"name", "host-0"},
                    {"hostPath", {{"path", "/var/lib/fedtb/c2/node2"}, {"type", "Directory"}}}}}));
  // The cordon's taint and the restart's NotReady window must not keep or evict it.
  const json& tolerations = spec["tolerations"];
  CHECK(tolerations.size() == 3);
  CHECK(tolerations[0] == json{{"operator", "Exists"}, {"effect", "NoSchedule"}});
  CHECK(tolerations[1]["key"] == "node.kubernetes.io/not-ready");
  CHECK(tolerations[2]["key"] == "node.kubernetes.io/unreachable");
}

TEST_CASE("by default the agent asks the kubelet: no path, no mount; a drop-in dir is mounted") {
  ReconfigureOptions o;
  o.set = {"maxPods=50"};
  auto plan = make_plan(o, "");
  REQUIRE(plan);
  CHECK(plan->target.discovers());
  json pod = agent_pod(*plan, "n1");
  CHECK(pod["spec"]["volumes"].empty());
  CHECK(pod["spec"]["hostPID"] == true);
  CHECK(pod["spec"]["hostNetwork"] == true);
  const json cmd = pod["spec"]["containers"][0]["command"];
  for (const char* flag : {"--restart-command", "--kubelet-config", "--kubelet-config-dir",
                           "--kubelet-root-dir", "--distribution"}) {
    CHECK_MESSAGE(std::find(cmd.begin(), cmd.end(), flag) == cmd.end(), flag);
  }

  o.kubelet_config_dir = "/etc/kubernetes/kubelet.conf.d/";
  plan = make_plan(o, "");
  REQUIRE(plan);
  pod = agent_pod(*plan, "n1");
  CHECK(pod["spec"]["volumes"].size() == 2);
  CHECK(pod["spec"]["volumes"][0]["hostPath"]["path"] == "/etc/kubernetes/kubelet.conf.d");
  CHECK(pod["spec"]["volumes"][1]["hostPath"]["path"] == "/var/lib/kubelet");
}

TEST_CASE("--distribution mounts that vendor's paths from the table and tells the agent") {
  ReconfigureOptions o;
  o.set = {"maxPods=50"};
  o.distribution = "eks-al2023";
  auto plan = make_plan(o, "");
  REQUIRE(plan);
  json pod = agent_pod(*plan, "n1");
  CHECK(pod["spec"]["volumes"][0]["hostPath"]["path"] == "/etc/kubernetes/kubelet");
  json cmd = pod["spec"]["containers"][0]["command"];
  auto at = [&](std::string_view flag) {
    auto it = std::find(cmd.begin(), cmd.end(), flag);
    return it == cmd.end() || it + 1 == cmd.end() ? std::string() : (it + 1)->get<std::string>();
  };
  CHECK(at("--kubelet-config") == "/etc/kubernetes/kubelet/config.json");
  CHECK(at("--distribution") == "eks-al2023");

  // k3s has no config file of its own: a drop-in in its directory; the agent restarts k3s.
  o.distribution = "k3s";
  plan = make_plan(o, "");
  REQUIRE(plan);
  cmd = agent_pod(*plan, "n1")["spec"]["containers"][0]["command"];
  CHECK(at("--kubelet-config-dir") == "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d");
  CHECK(at("--kubelet-config").empty());
  CHECK(at("--distribution") == "k3s");

  // An explicit path wins over the table.
  o.kubelet_config = "/opt/kubelet.yaml";
  plan = make_plan(o, "");
  REQUIRE(plan);
  cmd = agent_pod(*plan, "n1")["spec"]["containers"][0]["command"];
  CHECK(at("--kubelet-config") == "/opt/kubelet.yaml");

  o.distribution = "openshift";
  auto unknown = make_plan(o, "");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message().find("--distribution openshift: unknown; one of kubeadm, k3s") !=
        std::string::npos);
}

TEST_CASE("long node names give a valid pod name") {
  const std::string node(80, 'a');
  const std::string name = agent_pod_name(node);
  CHECK(name.size() == 63);
  CHECK(name.rfind("reconfigure-aaaa", 0) == 0);
  CHECK(agent_pod_name(node) == name);  // stable
  CHECK(agent_pod_name(std::string(80, 'b')) != name);
}

TEST_CASE("RBAC: nodes get/patch and nodes/proxy get, nothing else, never a wildcard") {
  const auto objects = reconfigure_rbac();
  REQUIRE(objects.size() == 3);
  CHECK(objects[0]["kind"] == "ServiceAccount");
  CHECK(objects[0]["metadata"]["namespace"] == "kubectl-fed-system");
  CHECK(objects[1]["kind"] == "ClusterRole");
  CHECK(objects[1]["rules"] ==
        json::array({{{"apiGroups", {""}}, {"resources", {"nodes"}}, {"verbs", {"get", "patch"}}},
                     {{"apiGroups", {""}}, {"resources", {"nodes/proxy"}}, {"verbs", {"get"}}}}));
  CHECK(objects[1].dump().find('*') == std::string::npos);
  CHECK(objects[2]["kind"] == "ClusterRoleBinding");
  CHECK(objects[2]["roleRef"]["name"] == objects[1]["metadata"]["name"]);
  CHECK(objects[2]["subjects"][0]["name"] == "kubectl-fed-reconfigure");
  CHECK(reconfigure_namespace()["metadata"]["labels"]["app.kubernetes.io/part-of"] ==
        "kubectl-fed");
  // The agent's pods are privileged: Pod Security admission must let them in.
  CHECK(reconfigure_namespace()["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] ==
        "privileged");
}

TEST_CASE("drain evicts ordinary pods, not DaemonSet, mirror, finished or agent pods") {
  const json plain = {{"metadata", {{"name", "web"}}}, {"status", {{"phase", "Running"}}}};
  CHECK(evictable(plain));
  json ds = plain;
  ds["metadata"]["ownerReferences"] = json::array({{{"kind", "DaemonSet"}, {"name", "x"}}});
  CHECK_FALSE(evictable(ds));
  json mirror = plain;
  mirror["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "abc"}};
  CHECK_FALSE(evictable(mirror));
  json done = plain;
  done["status"]["phase"] = "Succeeded";
  CHECK_FALSE(evictable(done));
  json agent = plain;
  agent["metadata"]["labels"] = {{"app.kubernetes.io/component", "reconfigure-node"}};
  CHECK_FALSE(evictable(agent));
  json rs = plain;
  rs["metadata"]["ownerReferences"] = json::array({{{"kind", "ReplicaSet"}, {"name", "x"}}});
  CHECK(evictable(rs));
}

TEST_CASE("drain waits for a pod of a namespace being deleted instead of failing") {
  // The API server's answer to an eviction in a terminating namespace (seen on the testbed).
  const auto terminating = fed::kube::ApiError::from_response(
      403, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden",
      "message":"pods \"other\" is forbidden: unable to create new content in namespace pp because it is being terminated",
      "details":{"name":"other","kind":"pods","causes":[{"reason":"NamespaceTerminating",
      "message":"namespace pp is being terminated","field":"metadata.namespace"}]},"code":403})");
  CHECK(namespace_terminating(terminating));
  const auto rbac = fed::kube::ApiError::from_response(
      403, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden",
      "message":"pods \"other\" is forbidden: User \"x\" cannot create resource","code":403})");
  CHECK_FALSE(namespace_terminating(rbac));
}

TEST_CASE("the CNI switch's pod: the conf dir only, no privilege, no token, no host PID") {
  ReconfigurePlan plan;
  plan.image = "fed.local/fed-agent:dev";
  plan.cni = CniSwitchPlan{
      R"({"name": "alt", "dataDir": "/x/{node}"})", "alt", {}, "/v/{node}/net.d", false};
  const json pod = agent_pod(plan, "node2");
  const json& spec = pod["spec"];
  CHECK(spec["hostPID"] == false);
  CHECK(spec["automountServiceAccountToken"] == false);
  CHECK_FALSE(spec.contains("serviceAccountName"));
  const json& c = spec["containers"][0];
  CHECK(c["securityContext"]["privileged"] == false);
  CHECK(c["securityContext"]["capabilities"]["drop"] == json{"ALL"});
  CHECK(c["command"] == json{"/usr/local/bin/fed-agent", "cni-switch", "--node", "node2",
                             "--cni-conf-dir", "/v/node2/net.d", "--conflist",
                             R"({"name": "alt", "dataDir": "/x/node2"})"});
  REQUIRE(spec["volumes"].size() == 1);
  CHECK(spec["volumes"][0]["hostPath"]["path"] == "/v/node2/net.d");
  plan.cni->rollback = true;
  CHECK(agent_pod(plan, "node2")["spec"]["containers"][0]["command"].back() == "--rollback");
}

TEST_CASE("the CNI probe: a new pod's address must come from the new network") {
  CniSwitchPlan cni{"{}", "alt", {"10.250.0.0/24", "10.251.0.0/24"}, "/etc/cni/net.d", false};
  CHECK(probe_ip_problem(cni, "10.251.0.7").empty());
  CHECK(probe_ip_problem(cni, "10.242.0.9").find("not an address of network alt") !=
        std::string::npos);
  CHECK(probe_ip_problem(cni, "").find("no address") != std::string::npos);
  cni.subnets.clear();  // IPAM we cannot read: any address will do
  CHECK(probe_ip_problem(cni, "192.168.3.3").empty());
  cni.rollback = true;
  CHECK(probe_ip_problem(cni, "10.242.0.9").empty());
  const json probe = cni_probe_pod("img", "node1");
  CHECK(probe["metadata"]["name"] == "cni-probe-node1");
  CHECK(probe["spec"]["nodeName"] == "node1");
  CHECK(probe["spec"]["automountServiceAccountToken"] == false);
  // Only its address is read: it listens on nothing.
  CHECK(probe["spec"]["containers"][0]["command"] ==
        json::array({"/usr/local/bin/fed-agent", "probe", "--for", "60s"}));
}

TEST_CASE("the API server's address replaces the Service address in a host-network pod") {
  const json pod = agent_pod(testbed_plan(), "node1", "172.30.2.10:6443");
  const json env = pod["spec"]["containers"][0]["env"];
  CHECK(env[1] == json{{"name", "KUBERNETES_SERVICE_HOST"}, {"value", "172.30.2.10"}});
  CHECK(env[2] == json{{"name", "KUBERNETES_SERVICE_PORT"}, {"value", "6443"}});
  CHECK(agent_pod(testbed_plan(), "node1")["spec"]["containers"][0]["env"].size() == 1);
}
