// The cluster features' manifests (reconfigure's PodPreset): their objects, least-privilege RBAC,
// and that neither init nor join installs them; the FeatureConfig policy's kubelet allow-list.

#include <doctest/doctest.h>

#include <set>

#include "plugin/manifests/render.hpp"
#include "shared/reconfig/allow_list.hpp"
#include "tests/unit/plugin/manifests/render_test_support.hpp"

using namespace fed::plugin;
using namespace render_test;

TEST_CASE("the PodPreset feature: its objects, only through reconfigure, least privilege") {
  RenderOptions options;
  options.image = "registry.example/fed-agent:1";
  auto objects = render_feature("podpreset", options);
  REQUIRE(objects);
  std::set<std::string> kinds;
  for (const auto& o : *objects)
    kinds.insert(o["kind"].get<std::string>() + "/" + o["metadata"]["name"].get<std::string>());
  CHECK(kinds.contains("CustomResourceDefinition/podpresets.settings.kubectl-fed.io"));
  CHECK(kinds.contains("MutatingWebhookConfiguration/kubectl-fed-podpreset"));
  CHECK(kinds.contains("Deployment/fed-podpreset"));
  CHECK(find(*objects, "Deployment",
             "fed-podpreset")["spec"]["template"]["spec"]["containers"][0]["image"] ==
        "registry.example/fed-agent:1");
  CHECK(find(*objects, "MutatingWebhookConfiguration",
             "kubectl-fed-podpreset")["webhooks"][0]["failurePolicy"] == "Ignore");
  CHECK(rules(find(*objects, "ClusterRole", "kubectl-fed:podpreset")) ==
        join_sets({expand("authentication.k8s.io", {"tokenreviews"}, {"create"}),
                   expand("authorization.k8s.io", {"subjectaccessreviews"}, {"create"}),
                   expand("settings.kubectl-fed.io", {"podpresets"}, {"get", "list", "watch"}),
                   {"admissionregistration.k8s.io|mutatingwebhookconfigurations|get|[\"kubectl-fed-"
                    "podpreset\"]",
                    "admissionregistration.k8s.io|mutatingwebhookconfigurations|update|[\"kubectl-"
                    "fed-podpreset\"]"}}));
  // Neither init nor join installs it.
  for (const auto& rendered : {render_host(kHost, options), render_member(kMember, options)}) {
    REQUIRE(rendered);
    for (const auto& o : *rendered) CHECK(o["metadata"]["name"] != "fed-podpreset");
  }
  CHECK_FALSE(render_feature("nosuch", options));
}

TEST_CASE("the FeatureConfig policy refuses the kubelet fields the plugin refuses, no others") {
  auto host = render_host(kHost, RenderOptions{});
  REQUIRE(host);
  const json& policy =
      find(*host, "ValidatingAdmissionPolicy", "kubectl-fed-featureconfig-kubelet-fields");
  std::string list;
  for (const auto& variable : policy["spec"]["variables"]) {
    if (variable["name"] == "allowed") list = variable["expression"].get<std::string>();
  }
  std::set<std::string> quoted;  // the names in the list
  for (std::size_t at = list.find('\''); at != std::string::npos;
       at = list.find('\'', list.find('\'', at + 1) + 1)) {
    quoted.insert(list.substr(at + 1, list.find('\'', at + 1) - at - 1));
  }
  std::set<std::string> allowed;
  for (const auto& field : fed::reconfig::allowed_fields()) allowed.emplace(field.name);
  CHECK(quoted == allowed);
  CHECK(find(*host, "ValidatingAdmissionPolicyBinding",
             "kubectl-fed-featureconfig-kubelet-fields")["spec"]["validationActions"] ==
        json::array({"Deny"}));
}
