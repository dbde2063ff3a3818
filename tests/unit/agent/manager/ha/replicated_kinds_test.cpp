// Which objects are replicated and under which key (agent/manager/ha/replicated_kinds).
#include "agent/manager/ha/replicated_kinds.hpp"

#include <doctest/doctest.h>

#include <set>

namespace fed::ha {

using nlohmann::json;

TEST_CASE("replicated kinds: the membership, the hosts, the member links, the records") {
  std::vector<std::string> names;
  for (const auto& kind : replicated_kinds()) names.push_back(kind.key_kind());
  // A credential Secret before the FederatedCluster that names it.
  CHECK(names == std::vector<std::string>{"secrets", "federationhosts.fed.kubectl-fed.io",
                                          "federatedclusters.fed.kubectl-fed.io",
                                          "directpeerings.fed.kubectl-fed.io",
                                          "featureconfigs.fed.kubectl-fed.io"});
  // Only the member credentials among the Secrets, and only in kubectl-fed-system.
  const ReplicatedKind& secrets = replicated_kinds().front();
  CHECK(secrets.collection.ns == "kubectl-fed-system");
  CHECK(secrets.label_selector == "kubectl-fed.io/member");
  // A host's own objects are not replicated: each host is the hub of its own data path.
  for (const char* own : {"ipamstates.fed.kubectl-fed.io", "ipamblocks.fed.kubectl-fed.io",
                          "natmappings.fed.kubectl-fed.io", "peerings.fed.kubectl-fed.io",
                          "endpointmappings.fed.kubectl-fed.io",
                          "namespaceoffloadings.fed.kubectl-fed.io", "configmaps"}) {
    CHECK(replicated_kind_named(own) == nullptr);
  }
  CHECK(replicated_kind_named("federatedclusters.fed.kubectl-fed.io") == &replicated_kinds()[2]);
}

TEST_CASE("replicated kinds: an object's key, and its type filled in") {
  const ReplicatedKind& secrets = replicated_kinds().front();
  const json listed{{"metadata", {{"name", "c2-credentials"}, {"namespace", "kubectl-fed-system"}}},
                    {"data", {{"kubeconfig", "YQ=="}}}};
  CHECK(state_key_of(secrets, listed) ==
        StateKey{"secrets", "kubectl-fed-system", "c2-credentials"});
  const json full = typed(secrets, listed);
  CHECK(full["apiVersion"] == "v1");
  CHECK(full["kind"] == "Secret");
  CHECK(full["data"] == listed["data"]);
  const ReplicatedKind* clusters = replicated_kind_named("federatedclusters.fed.kubectl-fed.io");
  REQUIRE(clusters != nullptr);
  CHECK(state_key_of(*clusters, json{{"metadata", {{"name", "c2"}}}}) ==
        StateKey{"federatedclusters.fed.kubectl-fed.io", "", "c2"});
  CHECK(typed(*clusters, json::object())["apiVersion"] == "fed.kubectl-fed.io/v1alpha1");
  // A FederatedCluster's status is the member's link with the host that wrote it: not
  // replicated. A FederationHost's (its etcd member) is.
  const json with_status{{"metadata", {{"name", "c2"}}}, {"status", {{"phase", "Member"}}}};
  CHECK_FALSE(typed(*clusters, with_status).contains("status"));
  const ReplicatedKind* hosts = replicated_kind_named("federationhosts.fed.kubectl-fed.io");
  REQUIRE(hosts != nullptr);
  CHECK(typed(*hosts, with_status)["status"] == with_status["status"]);
}

}  // namespace fed::ha
