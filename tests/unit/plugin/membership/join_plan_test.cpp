// join's decisions without a cluster: who may join, the comparison that makes a repeated join
// write nothing ("already joined"), the host-side objects and the --wait diagnosis.

#include "plugin/membership/join_plan.hpp"

#include <doctest/doctest.h>

#include "shared/kube/kubeconfig.hpp"
#include "shared/util/base64.hpp"

using namespace fed::plugin;
using nlohmann::json;

namespace {

ClusterIdentity member_of(const std::string& id, const std::string& federation) {
  return {id, FederationRole::Member, "10.243.0.0/16", "10.103.0.0/16", federation};
}

// What the API server returns for `desired`: defaults, metadata and status added.
json as_stored(json desired) {
  desired["metadata"]["resourceVersion"] = "4711";
  desired["metadata"]["uid"] = "0b8e";
  desired["metadata"]["managedFields"] = json::array({{{"manager", "kubectl-fed"}}});
  desired["metadata"]["creationTimestamp"] = "2026-11-24T10:00:00Z";
  desired["status"] = {{"observedGeneration", 1}};
  return desired;
}

}  // namespace

TEST_CASE("a member of another federation, or a host, is refused") {
  CHECK(check_member_identity(std::nullopt, "c3", "c1"));
  CHECK(check_member_identity(member_of("c3", "c1"), "c3", "c1"));
  auto foreign = check_member_identity(member_of("c3", "c2"), "c3", "c1");
  REQUIRE_FALSE(foreign);
  CHECK(foreign.error().message().find("federation c2") != std::string::npos);
  CHECK(foreign.error().message().find("unjoin") != std::string::npos);
  ClusterIdentity host{"c3", FederationRole::Host, "10.243.0.0/16", "10.103.0.0/16", "c3"};
  CHECK_FALSE(check_member_identity(host, "c3", "c1"));
  CHECK_FALSE(check_member_identity(member_of("other", "c1"), "c3", "c1"));
}

TEST_CASE("join refuses to retarget a joined member's records at another cluster") {
  CHECK(check_not_retargeted(false, std::nullopt, "c2", "c1"));          // a first join
  CHECK(check_not_retargeted(true, member_of("c2", "c1"), "c2", "c1"));  // joining again
  auto other = check_not_retargeted(true, std::nullopt, "c2", "c1");     // c3's context
  REQUIRE_FALSE(other);
  CHECK(other.error().code() == fed::ErrorCode::Invalid);
  CHECK(other.error().message().find("member c2 is already joined to c1") == 0);
  CHECK(other.error().message().find("kubectl fed unjoin c2") != std::string::npos);
}

TEST_CASE("unjoin checks that the member context reaches that member before deleting") {
  CHECK(check_unjoin_target(std::nullopt, "c3", "c1", false));  // its side is gone already
  CHECK(check_unjoin_target(member_of("c3", "c1"), "c3", "c1", false));
  auto wrong = check_unjoin_target(member_of("c2", "c1"), "c3", "c1", false);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message() ==
        "the member context reaches member c2 of c1, not c3: give c3's own context "
        "(--member-context)");
  CHECK_FALSE(check_unjoin_target(member_of("c2", "c1"), "c3", "c1", true));  // not even forced
  ClusterIdentity host{"c1", FederationRole::Host, "10.241.0.0/16", "10.101.0.0/16", "c1"};
  auto the_host = check_unjoin_target(host, "c3", "c1", true);
  REQUIRE_FALSE(the_host);
  CHECK(the_host.error().message().find("the member context reaches the host of federation c1") ==
        0);
  auto foreign = check_unjoin_target(member_of("c3", "c9"), "c3", "c1", false);
  REQUIRE_FALSE(foreign);
  CHECK(foreign.error().message().find("belongs to federation c9") != std::string::npos);
  CHECK(check_unjoin_target(member_of("c3", "c9"), "c3", "c1", true));
}

TEST_CASE("covers: server-added fields do not count, changed or missing ones do") {
  const json desired{{"apiVersion", "apps/v1"},
                     {"kind", "DaemonSet"},
                     {"metadata", {{"name", "fed-agent"}, {"labels", {{"a", "b"}}}}},
                     {"spec",
                      {{"template",
                        {{"spec",
                          {{"containers", json::array({{{"name", "agent"}, {"image", "x:1"}}})},
                           {"tolerations", json::array({{{"operator", "Exists"}}})}}}}}}}};
  json live = as_stored(desired);
  live["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "IfNotPresent";
  live["spec"]["template"]["spec"]["dnsPolicy"] = "ClusterFirst";
  live["metadata"]["labels"]["added-by-someone"] = "x";
  CHECK(covers(live, desired));
  CHECK(plan_outcome(live, desired) == ApplyOutcome::Unchanged);
  CHECK(plan_outcome(std::nullopt, desired) == ApplyOutcome::Created);

  json changed = live;
  changed["spec"]["template"]["spec"]["containers"][0]["image"] = "x:2";
  CHECK(plan_outcome(changed, desired) == ApplyOutcome::Configured);
  json extra_container = live;
  extra_container["spec"]["template"]["spec"]["containers"].push_back({{"name", "other"}});
  CHECK_FALSE(covers(extra_container, desired));
  json lost_label = live;
  lost_label["metadata"]["labels"].erase("a");
  CHECK_FALSE(covers(lost_label, desired));

  // Secrets: the token controller fills data the desired object leaves out.
  const json token{{"apiVersion", "v1"},
                   {"kind", "Secret"},
                   {"type", "kubernetes.io/service-account-token"},
                   {"metadata", {{"name", "fed-federation-token"}}}};
  json filled = as_stored(token);
  filled["data"] = {{"token", "dG9r"}, {"ca.crt", "Y2E="}};
  CHECK(covers(filled, token));
}

TEST_CASE("a FederatedCluster's spec must match exactly") {
  MemberSpec spec{"c3", "https://172.31.0.103:6443", {{"region", "eu"}}, "4", "8Gi", ""};
  const json fc = federated_cluster(spec);
  CHECK(fc["spec"]["clusterID"] == "c3");
  CHECK(fc["spec"]["role"] == "member");
  CHECK(fc["spec"]["credentialSecretRef"] ==
        json{{"name", "member-c3"}, {"namespace", "kubectl-fed-system"}});
  CHECK(fc["spec"]["clusterLabels"] == json{{"region", "eu"}});
  CHECK(fc["spec"]["offered"] == json{{"cpu", "4"}, {"memory", "8Gi"}});
  json live = as_stored(fc);
  live["metadata"]["finalizers"] = json::array({"kubectl-fed.io/membership"});
  CHECK(plan_federated_cluster(live, fc) == ApplyOutcome::Unchanged);
  CHECK(plan_federated_cluster(std::nullopt, fc) == ApplyOutcome::Created);

  // Joining again without --cluster-labels drops them: not "already joined".
  MemberSpec fewer = spec;
  fewer.cluster_labels.clear();
  CHECK(plan_federated_cluster(live, federated_cluster(fewer)) == ApplyOutcome::Configured);
  MemberSpec moved = spec;
  moved.api_endpoint = "https://10.0.0.1:6443";
  CHECK(plan_federated_cluster(live, federated_cluster(moved)) == ApplyOutcome::Configured);

  // The default backend is not written (a FederatedCluster from before the field is
  // unchanged); another one is, and changes the spec.
  CHECK_FALSE(fc["spec"].contains("tunnelBackend"));
  MemberSpec wireguard = spec;
  wireguard.tunnel_backend = "wireguard";
  CHECK(plan_federated_cluster(live, federated_cluster(wireguard)) == ApplyOutcome::Unchanged);
  MemberSpec vxlan = spec;
  vxlan.tunnel_backend = "vxlan";
  CHECK(federated_cluster(vxlan)["spec"]["tunnelBackend"] == "vxlan");
  CHECK(plan_federated_cluster(live, federated_cluster(vxlan)) == ApplyOutcome::Configured);
}

TEST_CASE("already joined only when nothing is written on either side") {
  const std::vector<AppliedObject> same{{"namespace/kubectl-fed-system", ApplyOutcome::Unchanged},
                                        {"daemonset/fed-agent", ApplyOutcome::Unchanged}};
  std::vector<AppliedObject> one_changed = same;
  one_changed[1].outcome = ApplyOutcome::Configured;
  const std::vector<AppliedObject> host{{"secret/member-c3", ApplyOutcome::Unchanged},
                                        {"federatedcluster/c3", ApplyOutcome::Unchanged}};
  std::vector<AppliedObject> host_created = host;
  host_created[1].outcome = ApplyOutcome::Created;
  CHECK(already_joined(same, host, false));
  CHECK_FALSE(already_joined(one_changed, host, false));
  CHECK_FALSE(already_joined(same, host_created, false));
  CHECK_FALSE(already_joined(same, host, true));  // the gateway label had to be set
}

TEST_CASE("the credential Secret carries a kubeconfig for the federation's token") {
  fed::kube::RestConfig member;
  member.server = "https://127.0.0.1:16003";
  member.tls_server_name = "kubernetes";
  const std::string text = credential_kubeconfig("c3", "https://172.31.0.103:6443", member,
                                                 "-----BEGIN CERTIFICATE-----\nCA\n", "tok-123");
  auto parsed = fed::kube::parse_kubeconfig(text, "secret");
  REQUIRE(parsed);
  REQUIRE(parsed->contexts.count("c3") == 1);
  CHECK(parsed->current_context == "c3");
  CHECK(parsed->clusters["c3"].server == "https://172.31.0.103:6443");
  CHECK(parsed->clusters["c3"].tls_server_name == "kubernetes");
  CHECK(parsed->clusters["c3"].certificate_authority_data.find("CA") != std::string::npos);
  CHECK(parsed->users["c3"].token == "tok-123");

  const json secret = credential_secret("c3", text);
  CHECK(secret["type"] == "kubectl-fed.io/member-credential");
  CHECK(secret["metadata"]["name"] == "member-c3");
  CHECK(secret["metadata"]["namespace"] == "kubectl-fed-system");
  CHECK(*fed::util::base64_decode(secret["data"]["kubeconfig"].get<std::string>()) == text);
  CHECK_FALSE(credential_secret("c3", "").contains("data"));
  // The same inputs give the same bytes, so a re-join compares equal.
  CHECK(credential_kubeconfig("c3", "https://172.31.0.103:6443", member,
                              "-----BEGIN CERTIFICATE-----\nCA\n", "tok-123") == text);
}

TEST_CASE("--wait names the condition that is not True") {
  json fc{{"metadata", {{"name", "c3"}}}};
  auto missing = not_ready_reason(fc);
  REQUIRE(missing);
  CHECK(missing->find("manager") != std::string::npos);
  fc["status"]["conditions"] = json::array(
      {{{"type", "NetworkReady"}, {"status", "True"}, {"reason", "Exchanged"}, {"message", ""}},
       {{"type", "TunnelReady"},
        {"status", "False"},
        {"reason", "TunnelPending"},
        {"message", "waiting for the gateway of c1 to publish its key"}},
       {{"type", "Ready"}, {"status", "False"}, {"reason", "TunnelPending"}, {"message", "x"}}});
  CHECK(*not_ready_reason(fc) ==
        "condition TunnelReady is False (TunnelPending): waiting for the gateway of c1 to publish "
        "its key");
  for (auto& c : fc["status"]["conditions"]) c["status"] = "True";
  CHECK_FALSE(not_ready_reason(fc));
}

TEST_CASE("--wait gives up on a report that the member cannot be used, for the spec it wrote") {
  auto with_ready = [](const std::string& reason, std::int64_t generation) {
    json fc{{"metadata", {{"name", "c2"}, {"generation", 3}}}};
    fc["status"]["conditions"] =
        json::array({{{"type", "Ready"},
                      {"status", "False"},
                      {"reason", reason},
                      {"message", "GET https://172.30.2.10:6443/api: Could not connect"},
                      {"observedGeneration", generation}}});
    return fc;
  };
  auto blocked = join_blocker(with_ready("MemberUnreachable", 3), 3);
  REQUIRE(blocked);
  CHECK(*blocked == "MemberUnreachable: GET https://172.30.2.10:6443/api: Could not connect");
  CHECK(join_blocker(with_ready("ForeignFederation", 4), 3));
  CHECK(join_blocker(with_ready("MemberInvalid", 3), 3));
  // A report on an older spec, a join that wrote nothing, a passing state: wait on.
  CHECK_FALSE(join_blocker(with_ready("MemberUnreachable", 2), 3));
  CHECK_FALSE(join_blocker(with_ready("MemberUnreachable", 3), 0));
  CHECK_FALSE(join_blocker(with_ready("TunnelPending", 3), 3));
  // RBAC applied by the join may not be in the member's authorizer cache yet: not final.
  CHECK_FALSE(join_blocker(with_ready("MemberForbidden", 3), 3));
  CHECK_FALSE(join_blocker(json{{"metadata", {{"name", "c2"}}}}, 3));
}
