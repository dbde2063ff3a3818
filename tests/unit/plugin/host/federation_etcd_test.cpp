// The host's federation etcd member: its Secrets are issued once and kept by a second init,
// the member's certificate follows its addresses, and the Deployments get the member's flags.

#include "plugin/host/federation_etcd.hpp"

#include <doctest/doctest.h>

#include "shared/pki/certificates.hpp"
#include "shared/util/base64.hpp"

using namespace fed::plugin;
using nlohmann::json;

namespace {

const EtcdMember kMember{"c1", "172.30.1.11", "172.31.0.1"};

std::string value(const json& secret, const std::string& key) {
  return fed::util::base64_decode(secret["data"][key].get<std::string>()).value();
}

EtcdSecretsFound found_from(const std::vector<json>& secrets) {
  return {secrets.at(0), secrets.at(1), secrets.at(2)};
}

}  // namespace

TEST_CASE("init issues the CA, the member's and the managers' certificates once") {
  auto first = federation_etcd_secrets(kMember, {}, "kubectl-fed-system");
  REQUIRE(first);
  REQUIRE(first->size() == 3);
  const json& ca = (*first)[0];
  const json& member = (*first)[1];
  const json& client = (*first)[2];
  CHECK(ca["metadata"]["name"] == "fed-etcd-ca");
  CHECK(ca["type"] == "Opaque");
  CHECK(member["metadata"]["name"] == "fed-etcd-member");
  CHECK(member["type"] == "kubernetes.io/tls");
  CHECK(member["metadata"]["annotations"]["kubectl-fed.io/etcd-addresses"] ==
        "172.30.1.11,172.31.0.1");
  CHECK(client["metadata"]["name"] == "fed-manager-etcd-client");
  for (const json* leaf : {&member, &client}) {
    CHECK(value(*leaf, "ca.crt") == value(ca, "tls.crt"));
    CHECK(fed::pki::signed_by(value(*leaf, "tls.crt"), value(ca, "tls.crt")));
    CHECK((*leaf)["metadata"]["namespace"] == "kubectl-fed-system");
  }

  // A second init keeps every pair: nothing changes, the other hosts keep trusting the CA.
  auto second = federation_etcd_secrets(kMember, found_from(*first), "kubectl-fed-system");
  REQUIRE(second);
  CHECK(*second == *first);

  // The gateway moved: a new member certificate from the same CA; the managers' is kept.
  const EtcdMember moved{"c1", "172.30.1.12", "172.31.0.1"};
  auto third = federation_etcd_secrets(moved, found_from(*first), "kubectl-fed-system");
  REQUIRE(third);
  CHECK((*third)[0] == ca);
  CHECK(value((*third)[1], "tls.crt") != value(member, "tls.crt"));
  CHECK((*third)[1]["metadata"]["annotations"]["kubectl-fed.io/etcd-addresses"] ==
        "172.30.1.12,172.31.0.1");
  CHECK((*third)[2] == client);

  // A leaf from another CA is replaced.
  EtcdSecretsFound foreign = found_from(*first);
  auto other = federation_etcd_secrets(kMember, {}, "kubectl-fed-system");
  REQUIRE(other);
  foreign.manager_client = (*other)[2];
  auto fourth = federation_etcd_secrets(kMember, foreign, "kubectl-fed-system");
  REQUIRE(fourth);
  CHECK(fed::pki::signed_by(value((*fourth)[2], "tls.crt"), value(ca, "tls.crt")));
}

TEST_CASE("the Deployments get the member's flags and the managers its client URL") {
  json etcd{{"kind", "Deployment"},
            {"metadata", {{"name", "fed-etcd"}}},
            {"spec", {{"template", {{"spec", {{"containers", {{{"args", json::array()}}}}}}}}}}};
  json manager = etcd;
  manager["metadata"]["name"] = "fed-manager";
  std::vector<json> objects{
      {{"kind", "Namespace"}, {"metadata", {{"name", "kubectl-fed-system"}}}}, etcd, manager};
  auto joining = objects;
  joining[1]["spec"]["template"]["spec"]["containers"][0]["args"] = {"--data-dir=/var/lib/etcd"};
  REQUIRE(add_federation_etcd(objects, kMember, {}, {"c1", "", ""}, "kubectl-fed-system"));
  REQUIRE(objects.size() == 6);
  CHECK(objects[1]["kind"] == "Secret");  // right after the Namespace
  CHECK(objects[4]["spec"]["template"]["spec"]["containers"][0]["args"] ==
        json::array({"--name=c1", "--initial-advertise-peer-urls=https://172.31.0.1:2480",
                     "--initial-cluster=c1=https://172.31.0.1:2480", "--initial-cluster-state=new",
                     "--initial-cluster-token=kubectl-fed-c1"}));
  CHECK(objects[5]["spec"]["template"]["spec"]["containers"][0]["args"] ==
        json::array({"--leader-elect-etcd-endpoints=https://172.30.1.11:2479"}));

  // Another host's member joins the cluster its FederationHost's status names.
  const EtcdMember c2{"c2", "172.30.2.11", "172.31.0.2"};
  REQUIRE(add_federation_etcd(joining, c2, {},
                              {"c1", "c1=https://172.31.0.1:2480,c2=https://172.31.0.2:2480", "2a"},
                              "kubectl-fed-system"));
  const json& args = joining[4]["spec"]["template"]["spec"]["containers"][0]["args"];
  // Its data directory is its own member id's: a host added again does not reuse the old data.
  CHECK(args[0] == "--data-dir=/var/lib/etcd/2a");
  CHECK(args[3] == "--initial-cluster=c1=https://172.31.0.1:2480,c2=https://172.31.0.2:2480");
  CHECK(args[4] == "--initial-cluster-state=existing");
  CHECK(args[5] == "--initial-cluster-token=kubectl-fed-c1");
  CHECK(federation_host(c2)["spec"]["etcdPeerURL"] == "https://172.31.0.2:2480");

  std::vector<json> without{{{"kind", "Namespace"}, {"metadata", {{"name", "x"}}}}};
  auto missing = add_federation_etcd(without, kMember, {}, {"c1", "", ""}, "x");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == fed::ErrorCode::Internal);
}

TEST_CASE("a dry run shows Secrets without their values") {
  json secret{{"kind", "Secret"}, {"data", {{"tls.key", "c2VjcmV0"}}}};
  CHECK(redact_secret_data(secret)["data"]["tls.key"] == "<redacted>");
  json cm{{"kind", "ConfigMap"}, {"data", {{"a", "b"}}}};
  CHECK(redact_secret_data(cm) == cm);
}
