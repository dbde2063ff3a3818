#include "agent/manager/offload/webhook/webhook_configuration.hpp"

#include <doctest/doctest.h>

#include "shared/util/base64.hpp"

using fed::offload::webhook_configuration;
using nlohmann::json;

namespace {

// As manifests/manager/pod-webhook.yaml installs it.
json installed() {
  return json::parse(R"({
    "apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
    "metadata": {"name": "kubectl-fed-pods", "resourceVersion": "7"},
    "webhooks": [{"name": "pods.offload.kubectl-fed.io", "failurePolicy": "Fail",
                  "clientConfig": {"service": {"name": "fed-manager-webhook",
                                               "namespace": "kubectl-fed-system",
                                               "path": "/mutate-pods", "port": 443}},
                  "namespaceSelector": {"matchExpressions": [
                    {"key": "kubernetes.io/metadata.name", "operator": "In", "values": [""]}]},
                  "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                             "resources": ["pods"]}]}]})");
}

}  // namespace

TEST_CASE("the CA bundle and the offloaded namespaces go into every webhook, the rest stays") {
  const json updated = webhook_configuration(installed(), "PEM", {"shop", "cart"});
  const json& hook = updated["webhooks"][0];
  CHECK(fed::util::base64_decode(hook["clientConfig"]["caBundle"].get<std::string>()).value() ==
        "PEM");
  CHECK(hook["clientConfig"]["service"]["name"] == "fed-manager-webhook");
  CHECK(hook["namespaceSelector"]["matchExpressions"][0]["values"] ==
        json::array({"cart", "shop"}));
  CHECK(hook["failurePolicy"] == "Fail");
  CHECK(updated["metadata"]["resourceVersion"] == "7");  // a conditional update
}

TEST_CASE("no offloaded namespace: a selector that matches none, still valid") {
  const json updated = webhook_configuration(installed(), "PEM", {});
  CHECK(updated["webhooks"][0]["namespaceSelector"]["matchExpressions"][0]["values"] ==
        json::array({""}));
}

TEST_CASE("the same input gives the same object (no write when nothing changed)") {
  const json once = webhook_configuration(installed(), "PEM", {"shop"});
  CHECK(webhook_configuration(once, "PEM", {"shop"}) == once);
}
