#include "agent/manager/offload/reflection/reflected_config.hpp"

#include <doctest/doctest.h>

#include "shared/offload/reflection_grant.hpp"

using namespace fed::offload;
using nlohmann::json;

TEST_CASE("which ConfigMaps and Secrets are reflected") {
  CHECK(reflected_config({{"metadata", {{"name", "web-config"}}}}, PodConfigKind::ConfigMap));
  // Every namespace has its own root CA bundle, from its own cluster.
  CHECK_FALSE(
      reflected_config({{"metadata", {{"name", "kube-root-ca.crt"}}}}, PodConfigKind::ConfigMap));
  CHECK(reflected_config({{"metadata", {{"name", "kube-root-ca.crt"}}}}, PodConfigKind::Secret));
  CHECK(reflected_config({{"metadata", {{"name", "db"}}}, {"type", "Opaque"}},
                         PodConfigKind::Secret));
  // A token of the host's API server means nothing on a member.
  CHECK_FALSE(reflected_config(
      {{"metadata", {{"name", "t"}}}, {"type", "kubernetes.io/service-account-token"}},
      PodConfigKind::Secret));
  // Every namespace has its own default ServiceAccount too.
  CHECK(reflected_config({{"metadata", {{"name", "web"}}}}, PodConfigKind::ServiceAccount));
  CHECK_FALSE(
      reflected_config({{"metadata", {{"name", "default"}}}}, PodConfigKind::ServiceAccount));
  CHECK_FALSE(reflected_config({{"metadata", {{"name", "going"}, {"deletionTimestamp", "x"}}}},
                               PodConfigKind::ConfigMap));
}

TEST_CASE("a twin keeps the data, type and labels, in the replica, with the origin labels") {
  const json secret{
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       {{"name", "db"},
        {"namespace", "shop"},
        {"uid", "u1"},
        {"resourceVersion", "42"},
        {"labels", {{"app", "web"}}},
        {"annotations",
         {{"note", "keep"}, {"kubectl.kubernetes.io/last-applied-configuration", "{}"}}}}},
      {"type", "Opaque"},
      {"data", {{"password", "czNjcjN0"}}},
      {"immutable", true}};
  const auto twin = twin_config(secret, PodConfigKind::Secret, {"c1", "shop", "shop-c1"});
  CHECK(twin["kind"] == "Secret");
  CHECK(twin["metadata"]["name"] == "db");
  CHECK(twin["metadata"]["namespace"] == "shop-c1");
  CHECK_FALSE(twin["metadata"].contains("uid"));
  CHECK_FALSE(twin["metadata"].contains("resourceVersion"));
  CHECK(twin["metadata"]["labels"]["app"] == "web");
  CHECK(twin["metadata"]["labels"]["kubectl-fed.io/origin-cluster"] == "c1");
  CHECK(twin["metadata"]["labels"]["kubectl-fed.io/origin-namespace"] == "shop");
  CHECK(twin["metadata"]["annotations"] == json{{"note", "keep"}});
  CHECK(twin["type"] == "Opaque");
  CHECK(twin["data"] == secret["data"]);
  CHECK(twin["immutable"] == true);

  const json cm{{"metadata", {{"name", "web-config"}}}, {"binaryData", {{"b", "AA=="}}}};
  const auto cm_twin = twin_config(cm, PodConfigKind::ConfigMap, {"c1", "shop", "shop-c1"});
  CHECK(cm_twin["kind"] == "ConfigMap");
  CHECK(cm_twin["binaryData"] == cm["binaryData"]);
  CHECK_FALSE(cm_twin.contains("data"));
  CHECK_FALSE(cm_twin["metadata"].contains("annotations"));

  const json sa{{"metadata", {{"name", "web"}, {"namespace", "shop"}}},
                {"automountServiceAccountToken", false},
                {"imagePullSecrets", json::array({{{"name", "registry"}}})},
                {"secrets", json::array({{{"name", "web-token-x"}}})}};
  const auto sa_twin = twin_config(sa, PodConfigKind::ServiceAccount, {"c1", "shop", "shop-c1"});
  CHECK(sa_twin["kind"] == "ServiceAccount");
  CHECK(sa_twin["automountServiceAccountToken"] == false);
  CHECK(sa_twin["imagePullSecrets"] == sa["imagePullSecrets"]);
  CHECK_FALSE(sa_twin.contains("secrets"));  // the host's token Secrets are not reflected
}

TEST_CASE("the reflection grant binds the read-only role to the manager in that namespace only") {
  const auto grant = reflection_grant("shop");
  CHECK(grant["kind"] == "RoleBinding");
  CHECK(grant["metadata"]["namespace"] == "shop");
  CHECK(grant["roleRef"]["kind"] == "ClusterRole");
  CHECK(grant["roleRef"]["name"] == "kubectl-fed:manager-reflection");
  CHECK(grant["subjects"] == json::array({{{"kind", "ServiceAccount"},
                                           {"name", "fed-manager"},
                                           {"namespace", "kubectl-fed-system"}}}));
}
