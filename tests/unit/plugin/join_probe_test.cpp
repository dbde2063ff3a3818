// join --wait's data-path proof, the pure parts: where the member must dial the host pod, what
// source the host must see, and the probe pods' shape (unprivileged, no token, ours).

#include "cmd/join_probe.hpp"

#include <doctest/doctest.h>

using namespace fed::plugin;

TEST_CASE("addresses move between a network and its remap as NETMAP moves them") {
  CHECK(translate_address("10.241.1.4", "10.241.0.0/23", "None").value() == "10.241.1.4");
  CHECK(translate_address("10.241.1.4", "10.241.0.0/23", "").value() == "10.241.1.4");
  // Same PodCIDR everywhere: the member sees the host's pods in its remap.
  CHECK(translate_address("10.244.1.4", "10.244.0.0/23", "10.0.2.0/23").value() == "10.0.3.4");
  CHECK(translate_address("10.244.0.2", "10.244.0.0/23", "10.0.6.0/23").value() == "10.0.6.2");
  // Outside the network, or a remap of another length: refused, not guessed.
  CHECK_FALSE(translate_address("10.245.0.1", "10.244.0.0/23", "10.0.2.0/23"));
  CHECK_FALSE(translate_address("10.244.0.1", "10.244.0.0/23", "10.0.2.0/24"));
  CHECK_FALSE(translate_address("not-an-ip", "10.244.0.0/23", "10.0.2.0/23"));
}

TEST_CASE("probe pods run fed-agent probe unprivileged, without a token, labelled as ours") {
  const auto pod = probe_pod("fed-probe-c2", "fed.local/fed-agent:dev",
                             {"--listen", "7946", "--id", "c1", "--for", "60s"});
  CHECK(pod["metadata"]["generateName"] == "fed-probe-c2-");
  CHECK(pod["metadata"]["namespace"] == "kubectl-fed-system");
  CHECK(pod["metadata"]["labels"]["app.kubernetes.io/part-of"] == "kubectl-fed");
  CHECK(pod["spec"]["restartPolicy"] == "Never");
  CHECK(pod["spec"]["automountServiceAccountToken"] == false);
  const auto& c = pod["spec"]["containers"][0];
  CHECK(c["image"] == "fed.local/fed-agent:dev");
  CHECK(c["command"] == nlohmann::json::array({"/usr/local/bin/fed-agent", "probe"}));
  CHECK(c["args"][1] == "7946");
  CHECK(c["securityContext"]["runAsNonRoot"] == true);
  CHECK(c["securityContext"]["allowPrivilegeEscalation"] == false);
  CHECK(c["securityContext"]["capabilities"]["drop"] == nlohmann::json::array({"ALL"}));
  CHECK_FALSE(c.contains("ports"));
}
