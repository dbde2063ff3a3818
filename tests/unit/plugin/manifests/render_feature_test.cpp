// The cluster features' manifests (reconfigure's PodPreset): their objects, least-privilege RBAC,
// and that neither init nor join installs them.

#include <doctest/doctest.h>

#include <set>

#include "plugin/manifests/render.hpp"
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
