// The rendered manifests: the embedded files are exactly manifests/kustomization.yaml's, the
// RBAC is least-privilege (no `*`, no cluster-admin), the image is substituted, and each role
// gets the objects docs/JOIN.md lists.

#include "plugin/manifests/render.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include <fstream>
#include <set>
#include <sstream>

#include "plugin/manifests/embedded_manifests.hpp"
#include "shared/fedapi/manifest.hpp"
#include "shared/util/yaml_text.hpp"
#include "tests/unit/plugin/manifests/render_test_support.hpp"

using namespace fed::plugin;
using nlohmann::json;

using namespace render_test;

TEST_CASE(
    "the embedded manifests are the files of the install's and the features' kustomizations") {
  std::vector<std::string> listed;
  for (const std::string dir : {"", "features/podpreset/"}) {
    std::ifstream in(std::string(FED_SOURCE_DIR) + "/manifests/" + dir + "kustomization.yaml");
    REQUIRE(in);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("  - ", 0) == 0) listed.push_back(dir + line.substr(4));
    }
  }
  std::vector<std::string> embedded;
  for (const auto& m : embedded_manifests()) {
    embedded.emplace_back(m.path);
    std::ifstream file(std::string(FED_SOURCE_DIR) + "/manifests/" + std::string(m.path));
    std::stringstream text;
    text << file.rdbuf();
    CHECK_MESSAGE(text.str() == m.text, m.path << " changed since the build; rebuild kubectl-fed");
  }
  CHECK(embedded == listed);
}

TEST_CASE("no role grants `*` and nothing binds cluster-admin") {
  auto all = render_all(RenderOptions{});
  REQUIRE(all);
  int roles = 0;
  for (const auto& r : *all) {
    const json& o = r.object;
    if (o["kind"] == "ClusterRole" || o["kind"] == "Role") {
      ++roles;
      for (const auto& rule : o["rules"]) {
        for (const char* field : {"apiGroups", "resources", "verbs"}) {
          if (!rule.contains(field)) continue;  // a non-resource rule has no groups
          for (const auto& v : rule[field]) {
            INFO(o["metadata"]["name"], " ", field);
            CHECK(v.get<std::string>().find('*') == std::string::npos);
          }
        }
        // One non-resource URL, read-only, in the role a Prometheus is bound to.
        if (o["metadata"]["name"] == "kubectl-fed:metrics-reader") {
          CHECK(rule["nonResourceURLs"] == json::array({"/metrics"}));
          CHECK(rule["verbs"] == json::array({"get"}));
        } else {
          CHECK_FALSE(rule.contains("nonResourceURLs"));
        }
      }
    }
    if (o["kind"] == "ClusterRoleBinding" || o["kind"] == "RoleBinding") {
      CHECK(o["roleRef"]["name"] != "cluster-admin");
      CHECK(o["roleRef"]["name"].get<std::string>().rfind("kubectl-fed:", 0) == 0);
    }
    CHECK(o["metadata"]["labels"][std::string(kPartOfLabel)] == "kubectl-fed");
  }
  CHECK(roles == 20);  // a new role must pass the checks above; count them here
}

TEST_CASE("the ClusterRoles grant exactly what docs/JOIN.md lists") {
  auto all = render_all(RenderOptions{});
  REQUIRE(all);
  std::vector<json> objects;
  for (auto& r : *all) objects.push_back(r.object);
  const std::string fed = "fed.kubectl-fed.io";
  CHECK(
      rules(find(objects, "ClusterRole", "kubectl-fed:federation")) ==
      join_sets(
          {expand("", {"nodes"}, {"get", "list", "watch"}),
           expand(fed, {"peerings", "natmappings", "ipamstates", "ipamblocks"},
                  {"get", "list", "watch", "create", "update", "patch", "delete"}),
           expand(fed, {"peerings/status"}, {"get", "patch", "update"}),
           expand("", {"namespaces"}, {"get", "list", "watch", "create", "delete"}),
           expand("rbac.authorization.k8s.io", {"rolebindings"}, {"get", "create"}),
           {R"(rbac.authorization.k8s.io|clusterroles|bind|["kubectl-fed:federation-replica"])"}}));
  // Bound only inside replicas, by the manager (rolebindings-policy.yaml).
  CHECK(rules(find(objects, "ClusterRole", "kubectl-fed:federation-replica")) ==
        join_sets({expand("", {"pods"}, {"get", "list", "watch", "create", "delete"}),
                   expand("", {"pods/log"}, {"get"}),
                   expand("", {"pods/exec", "pods/attach", "pods/portforward"}, {"create"}),
                   expand("", {"services"}, {"get", "list", "watch", "create", "update", "delete"}),
                   expand("discovery.k8s.io", {"endpointslices"},
                          {"get", "list", "watch", "create", "update", "delete"}),
                   expand("", {"configmaps", "secrets", "serviceaccounts"},
                          {"get", "create", "update", "delete"})}));
  CHECK(rules(find(objects, "Role", "kubectl-fed:federation")) ==
        expand("", {"configmaps"}, {"get", "list", "watch"}));
  // Every role's /metrics asks the API server who calls and whether it may.
  const auto delegated_auth =
      join_sets({expand("authentication.k8s.io", {"tokenreviews"}, {"create"}),
                 expand("authorization.k8s.io", {"subjectaccessreviews"}, {"create"})});
  CHECK(rules(find(objects, "ClusterRole", "kubectl-fed:agent")) ==
        join_sets({delegated_auth, expand("", {"nodes"}, {"get", "list", "watch"}),
                   expand(fed, {"peerings", "natmappings"}, {"get", "list", "watch"}),
                   expand(fed, {"peerings/status", "natmappings/status"}, {"patch"}),
                   expand("", {"events"}, {"create", "patch"})}));
  // The provider's tenancy role: replicas' quota, limits and isolation (narrowed to replicas by
  // tenancy-policy.yaml), its one webhook configuration and its one TLS Secret.
  CHECK(
      rules(find(objects, "ClusterRole", "kubectl-fed:tenancy")) ==
      join_sets(
          {delegated_auth,
           expand("", {"namespaces"}, {"get", "list", "watch"}),
           expand("", {"resourcequotas", "limitranges"}, {"get", "create", "update", "delete"}),
           expand("networking.k8s.io", {"networkpolicies"}, {"get", "create", "update", "delete"}),
           {R"(admissionregistration.k8s.io|validatingwebhookconfigurations|get|["kubectl-fed-tenant-namespaces"])",
            R"(admissionregistration.k8s.io|validatingwebhookconfigurations|update|["kubectl-fed-tenant-namespaces"])"}}));
  CHECK(rules(find(objects, "Role", "kubectl-fed:tenancy")) ==
        join_sets({expand("", {"secrets"}, {"create"}),
                   {R"(|secrets|get|["fed-tenancy-webhook-tls"])",
                    R"(|secrets|update|["fed-tenancy-webhook-tls"])"}}));
  const auto manager = rules(find(objects, "ClusterRole", "kubectl-fed:manager"));
  CHECK(manager.count(fed + "|federatedclusters/status|patch") == 1);
  CHECK(manager.count("|nodes|get") == 1);
  CHECK(manager.count("|events|create") == 1);
  CHECK(manager.count("authentication.k8s.io|tokenreviews|create") == 1);
  CHECK(manager.count("authorization.k8s.io|subjectaccessreviews|create") == 1);
  CHECK(manager.count("|secrets|get") == 0);  // only in kubectl-fed-system, through the Role
  CHECK(rules(find(objects, "Role", "kubectl-fed:manager")).count("|secrets|get") == 1);
  // ConfigMaps and Secrets of offloaded namespaces: read-only, and bound only per namespace by
  // `offload` (no binding in the manifests).
  CHECK(rules(find(objects, "ClusterRole", "kubectl-fed:manager-reflection")) ==
        expand("", {"configmaps", "secrets", "serviceaccounts"}, {"get", "list", "watch"}));
  for (const auto& r : objects) {
    if (r["kind"] == "ClusterRoleBinding" || r["kind"] == "RoleBinding") {
      CHECK(r["roleRef"]["name"] != "kubectl-fed:manager-reflection");
    }
  }
}

TEST_CASE("host and member objects; the image is substituted") {
  RenderOptions options;
  options.image = "registry.example/fed-agent:v9";
  auto host = render_host(kHost, options);
  REQUIRE(host);
  CHECK(names_of_kind(*host, "CustomResourceDefinition") ==
        std::set<std::string>{
            "federatedclusters.fed.kubectl-fed.io", "peerings.fed.kubectl-fed.io",
            "natmappings.fed.kubectl-fed.io", "ipamstates.fed.kubectl-fed.io",
            "ipamblocks.fed.kubectl-fed.io", "endpointmappings.fed.kubectl-fed.io",
            "directpeerings.fed.kubectl-fed.io", "namespaceoffloadings.fed.kubectl-fed.io",
            "namespacemaps.fed.kubectl-fed.io", "featureconfigs.fed.kubectl-fed.io",
            "deploymentreplications.fed.kubectl-fed.io", "federationhosts.fed.kubectl-fed.io",
            "federationleaders.fed.kubectl-fed.io"});
  CHECK(names_of_kind(*host, "Deployment") == std::set<std::string>{"fed-manager", "fed-etcd"});
  CHECK(names_of_kind(*host, "DaemonSet") == std::set<std::string>{"fed-agent"});
  CHECK(names_of_kind(*host, "ServiceAccount") ==
        std::set<std::string>{"fed-agent", "fed-manager"});
  CHECK(names_of_kind(*host, "ClusterRole") ==
        std::set<std::string>{
            "kubectl-fed:agent", "kubectl-fed:manager", "kubectl-fed:manager-reflection",
            "kubectl-fed:deploymentreplications-edit", "kubectl-fed:deploymentreplications-view",
            "kubectl-fed:metrics-reader"});
  for (const char* kind : {"Deployment", "DaemonSet"}) {
    for (const auto& o : *host) {
      if (o["kind"] != kind || o["metadata"]["name"] == "fed-etcd") continue;
      for (const auto& c : o["spec"]["template"]["spec"]["containers"]) {
        CHECK(c["image"] == "registry.example/fed-agent:v9");
      }
    }
  }
  // The federation etcd member runs etcd's image, not ours.
  CHECK(
      find(*host, "Deployment", "fed-etcd")["spec"]["template"]["spec"]["containers"][0]["image"] ==
      std::string(kDefaultEtcdImage));
  options.etcd_image = "mirror.example/etcd:3.5.21-0";
  auto mirrored = render_host(kHost, options);
  REQUIRE(mirrored);
  CHECK(find(*mirrored, "Deployment",
             "fed-etcd")["spec"]["template"]["spec"]["containers"][0]["image"] ==
        "mirror.example/etcd:3.5.21-0");
  const json& cm = find(*host, "ConfigMap", "federation");
  CHECK(cm["metadata"]["namespace"] == "kubectl-fed-system");
  CHECK(cm["data"] == json{{"clusterID", "c1"},
                           {"role", "host"},
                           {"podCIDR", "10.241.0.0/16"},
                           {"serviceCIDR", "10.101.0.0/16"},
                           {"federationID", "c1"}});

  auto member = render_member(kMember, RenderOptions{});
  REQUIRE(member);
  CHECK(names_of_kind(*member, "CustomResourceDefinition") ==
        std::set<std::string>{"peerings.fed.kubectl-fed.io", "natmappings.fed.kubectl-fed.io",
                              "ipamstates.fed.kubectl-fed.io", "ipamblocks.fed.kubectl-fed.io"});
  CHECK(names_of_kind(*member, "Deployment") == std::set<std::string>{"fed-tenancy"});
  CHECK(names_of_kind(*member, "Secret") == std::set<std::string>{"fed-federation-token"});
  CHECK(find(*member, "ConfigMap", "federation")["data"]["federationID"] == "c1");
  CHECK(find(*member, "ConfigMap", "federation")["data"]["role"] == "member");
}

TEST_CASE("the agent DaemonSet is what the datapath needs") {
  auto host = render_host(kHost, RenderOptions{});
  REQUIRE(host);
  const json& ds = find(*host, "DaemonSet", "fed-agent");
  const json& pod = ds["spec"]["template"]["spec"];
  CHECK(pod["hostNetwork"] == true);
  CHECK(pod["hostPID"] == true);
  const json& c = pod["containers"][0];
  CHECK(c["securityContext"]["privileged"] == true);
  CHECK(c["image"] == std::string(kDefaultImage));
  CHECK(c["lifecycle"]["preStop"]["exec"]["command"] ==
        json::array({"/usr/local/bin/fed-agent", "node", "--uninstall"}));
  std::set<std::string> host_paths;
  for (const auto& v : pod["volumes"]) host_paths.insert(v["hostPath"]["path"].get<std::string>());
  CHECK(host_paths == std::set<std::string>{"/run/xtables.lock", "/var/lib/kubectl-fed"});
  // Every real node whatever its taints, never a virtual node (no kubelet there).
  CHECK(pod["tolerations"] == json::parse(R"([{"operator": "Exists"}])"));
  CHECK(pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
           ["nodeSelectorTerms"] == json::parse(R"([{"matchExpressions": [
             {"key": "kubectl-fed.io/type", "operator": "NotIn", "values": ["virtual-node"]}]}])"));
}

TEST_CASE("--direct-routing reaches the node agents' flags, on the host and on members") {
  CHECK(find(*render_host(kHost, RenderOptions{}), "DaemonSet",
             "fed-agent")["spec"]["template"]["spec"]["containers"][0]["args"] ==
        json::array({"node"}));
  RenderOptions direct;
  direct.direct_routing = true;
  for (const auto& objects : {*render_host(kHost, direct), *render_member(kMember, direct)}) {
    CHECK(find(objects, "DaemonSet",
               "fed-agent")["spec"]["template"]["spec"]["containers"][0]["args"] ==
          json::array({"node", "--direct-routing"}));
  }
}

TEST_CASE("--wireguard reaches the node agents' flags; auto adds none; others are refused") {
  RenderOptions kernel;
  kernel.wireguard = "kernel";
  kernel.direct_routing = true;
  for (const auto& objects : {*render_host(kHost, kernel), *render_member(kMember, kernel)}) {
    CHECK(find(objects, "DaemonSet",
               "fed-agent")["spec"]["template"]["spec"]["containers"][0]["args"] ==
          json::array({"node", "--direct-routing", "--wireguard-backend=kernel"}));
  }
  for (const char* ok : {"auto", "kernel", "wireguard-go"}) CHECK(validate_wireguard_flag(ok));
  auto bad = validate_wireguard_flag("boringtun");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("--wireguard must be auto") == 0);
  CHECK(bad.error().message().find("\"boringtun\"") != std::string::npos);
}

TEST_CASE("--webhook-caller-auth reaches every role that serves a webhook, and no other") {
  auto has_flag = [](const json& deployment) {
    const json& args = deployment["spec"]["template"]["spec"]["containers"][0]["args"];
    return std::find(args.begin(), args.end(), json("--webhook-caller-auth")) != args.end();
  };
  RenderOptions on;
  on.webhook_caller_auth = true;
  auto host = render_host(kHost, on);
  auto member = render_member(kMember, on);
  auto preset = render_feature("podpreset", on);
  REQUIRE((host && member && preset));
  CHECK(has_flag(find(*host, "Deployment", "fed-manager")));
  CHECK(has_flag(find(*member, "Deployment", "fed-tenancy")));
  CHECK(has_flag(find(*preset, "Deployment", "fed-podpreset")));
  for (const auto& objects : {*host, *member}) {
    const json& args = find(objects, "DaemonSet",
                            "fed-agent")["spec"]["template"]["spec"]["containers"][0]["args"];
    CHECK(args == json::array({"node"}));
  }
  // Off by default: a managed cluster's API server presents no certificate to webhooks.
  CHECK_FALSE(has_flag(find(*render_host(kHost, RenderOptions{}), "Deployment", "fed-manager")));
  CHECK_FALSE(
      has_flag(find(*render_member(kMember, RenderOptions{}), "Deployment", "fed-tenancy")));
}

TEST_CASE(
    "virtual nodes: the manager writes Nodes only through the policy, Leases only in "
    "kube-node-lease") {
  RenderOptions options;
  options.namespace_name = "fed-elsewhere";
  auto host = render_host(kHost, options);
  REQUIRE(host);
  const auto manager = rules(find(*host, "ClusterRole", "kubectl-fed:manager"));
  for (const char* verb : {"get", "list", "watch", "create", "patch", "delete"}) {
    CHECK(manager.count(std::string("|nodes|") + verb) == 1);
  }
  CHECK(manager.count("|nodes|update") == 0);
  CHECK(manager.count("|nodes/status|patch") == 1);
  // Pod reflection: read pods, write the status of and finalize those on virtual nodes only
  // (the policy below).
  CHECK(manager.count("|pods|watch") == 1);
  CHECK(manager.count("|pods|create") == 0);
  CHECK(manager.count("|pods/status|update") == 1);
  CHECK(names_of_kind(*host, "ValidatingAdmissionPolicy") ==
        std::set<std::string>{
            "kubectl-fed-manager-virtual-nodes-only", "kubectl-fed-manager-virtual-node-pods-only",
            "kubectl-fed-manager-own-kubelet-serving-csrs-only",
            "kubectl-fed-manager-replicas-only", "kubectl-fed-manager-secrets-only",
            "kubectl-fed-leader-host-writes-only", "kubectl-fed-ipam-managers-only",
            "kubectl-fed-featureconfig-kubelet-fields"});
  // The federation's writes on a follower host are refused, by the host's fed-leader.
  const json& leader_only =
      find(*host, "ValidatingAdmissionPolicyBinding", "kubectl-fed-leader-host-writes-only");
  CHECK(leader_only["spec"]["paramRef"] ==
        json{{"name", "fed-leader"}, {"parameterNotFoundAction", "Allow"}});
  CHECK(find(*host, "ValidatingAdmissionPolicy",
             "kubectl-fed-leader-host-writes-only")["spec"]["paramKind"] ==
        json{{"apiVersion", "fed.kubectl-fed.io/v1alpha1"}, {"kind", "FederationLeader"}});
  // Deployment replication: Deployments written only through the policy (replicas), never patched.
  CHECK(manager.count("apps|deployments|create") == 1);
  CHECK(manager.count("apps|deployments|patch") == 0);
  CHECK(manager.count("fed.kubectl-fed.io|deploymentreplications|create") == 0);
  CHECK(manager.count("fed.kubectl-fed.io|deploymentreplications/status|update") == 1);
  // The virtual kubelet: approves only kubelet-serving CSRs (and the policy only its own).
  CHECK(manager.count(R"(certificates.k8s.io|signers|approve|["kubernetes.io/kubelet-serving"])") ==
        1);
  CHECK(manager.count("certificates.k8s.io|signers|approve") == 0);
  CHECK(manager.count("authorization.k8s.io|subjectaccessreviews|create") == 1);
  // The pod webhook: its configuration (get/update, that one object) as installed matches no
  // namespace until the manager names the offloaded ones; failurePolicy Fail.
  CHECK(
      manager.count(
          R"(admissionregistration.k8s.io|mutatingwebhookconfigurations|update|["kubectl-fed-pods"])") ==
      1);
  CHECK(manager.count("admissionregistration.k8s.io|mutatingwebhookconfigurations|create") == 0);
  const json& hook = find(*host, "MutatingWebhookConfiguration", "kubectl-fed-pods")["webhooks"][0];
  CHECK(hook["failurePolicy"] == "Fail");
  CHECK(hook["namespaceSelector"]["matchExpressions"][0]["values"] == json::array({""}));
  CHECK(hook["clientConfig"]["service"]["name"] == "fed-manager-webhook");
  CHECK(names_of_kind(*host, "Service") == std::set<std::string>{"fed-manager-webhook"});
  // Secrets: updated and deleted (a new leader restores the member credentials) through the
  // policy only, which keeps them to those and the webhook's TLS Secret.
  CHECK(rules(find(*host, "Role", "kubectl-fed:manager")).count("|secrets|delete") == 1);
  CHECK(manager.count("|secrets|update") == 0);                    // namespaced only
  CHECK(manager.count("coordination.k8s.io|leases|create") == 0);  // namespaced, below
  const json& leases = find(*host, "Role", "kubectl-fed:manager-node-leases");
  CHECK(leases["metadata"]["namespace"] == "kube-node-lease");  // not moved with --namespace
  CHECK(rules(leases) ==
        expand("coordination.k8s.io", {"leases"}, {"get", "create", "patch", "delete"}));
  const json& binding = find(*host, "RoleBinding", "kubectl-fed:manager-node-leases");
  CHECK(binding["metadata"]["namespace"] == "kube-node-lease");
  CHECK(binding["subjects"][0]["namespace"] == "fed-elsewhere");  // the manager's, moved
  const json& policy =
      find(*host, "ValidatingAdmissionPolicy", "kubectl-fed-manager-virtual-nodes-only");
  CHECK(policy["spec"]["failurePolicy"] == "Fail");
  CHECK(find(*host, "ValidatingAdmissionPolicyBinding",
             "kubectl-fed-manager-virtual-nodes-only")["spec"]["validationActions"] ==
        json::array({"Deny"}));
  auto member = render_member(kMember, RenderOptions{});
  REQUIRE(member);
  // On a member, the policies that keep the federation's namespace and binding rights, and the
  // tenancy role's quota and policy writes, to replicas; and on both, the IPAM's records to the
  // managers.
  const std::set<std::string> policies{"kubectl-fed-federation-replica-namespaces-only",
                                       "kubectl-fed-federation-replica-bindings-only",
                                       "kubectl-fed-tenancy-replicas-only",
                                       "kubectl-fed-ipam-managers-only"};
  CHECK(names_of_kind(*member, "ValidatingAdmissionPolicy") == policies);
  CHECK(names_of_kind(*member, "ValidatingAdmissionPolicyBinding") == policies);
}

TEST_CASE("the member's tenancy Deployment carries the join's cap, quota and PodCIDR") {
  RenderOptions options;
  options.tenancy = {3, "2", "4Gi", "10.244.0.0/16"};
  auto member = render_member(kMember, options);
  REQUIRE(member);
  const json& deployment = find(*member, "Deployment", "fed-tenancy");
  const json& pod = deployment["spec"]["template"]["spec"];
  CHECK(pod["serviceAccountName"] == "fed-tenancy");
  CHECK(pod["containers"][0]["args"] ==
        json::array({"tenancy", "--webhook-cert-dir", "/run/kubectl-fed/webhook",
                     "--namespace-quota", "3", "--quota", "requests.cpu=2,requests.memory=4Gi",
                     "--local-pod-cidr", "10.244.0.0/16"}));
  // Without offered resources, no quota flag: the role then keeps no ResourceQuota.
  CHECK(fed::plugin::tenancy_args({0, "", "", ""}) ==
        std::vector<std::string>{"--namespace-quota", "0"});
  // The webhook asks only about the federation identity's namespace creates.
  const json& webhook =
      find(*member, "ValidatingWebhookConfiguration", "kubectl-fed-tenant-namespaces");
  CHECK(webhook["webhooks"][0]["failurePolicy"] == "Fail");
  CHECK(webhook["webhooks"][0]["matchConditions"][0]["expression"].get<std::string>().find(
            ":fed-federation") != std::string::npos);
  // No cap (0): no webhook for the API server to wait on.
  options.tenancy.namespace_quota = 0;
  auto uncapped = render_member(kMember, options);
  REQUIRE(uncapped);
  CHECK(names_of_kind(*uncapped, "ValidatingWebhookConfiguration").empty());
  CHECK(names_of_kind(*uncapped, "Deployment") == std::set<std::string>{"fed-tenancy"});
  // The host gets none of it.
  auto host = render_host(kHost, RenderOptions{});
  REQUIRE(host);
  CHECK(names_of_kind(*host, "ValidatingWebhookConfiguration").empty());
}

TEST_CASE("object lists print as YAML that reads back with every object") {
  auto host = render_host(kHost, RenderOptions{});
  REQUIRE(host);
  const std::string yaml = fed::util::to_yaml_text(object_list(*host));
  auto docs = fed::fedapi::parse_manifests(yaml);
  REQUIRE(docs);
  REQUIRE(docs->size() == 1);
  CHECK((*docs)[0]["kind"] == "List");
  CHECK((*docs)[0]["items"] == json(*host));
  CHECK(object_label(find(*host, "ClusterRole", "kubectl-fed:agent")) ==
        "clusterrole/kubectl-fed:agent");
}
