#include "plugin/host/federation_etcd.hpp"

#include <algorithm>

#include "shared/pki/certificates.hpp"
#include "shared/util/base64.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// No rotation yet (docs/HA.md): the CA lives as long as kubeadm's, the leaves five years.
constexpr auto kCaValidity = std::chrono::seconds(24h * 365 * 10);
constexpr auto kLeafValidity = std::chrono::seconds(24h * 365 * 5);

std::string addresses_of(const EtcdMember& member) {
  return member.client_ip + "," + member.peer_address;
}

// The decoded value of `key` in a found Secret's data; empty when missing or not base64.
std::string secret_value(const std::optional<json>& secret, const std::string& key) {
  if (!secret) return "";
  const json data = secret->value("data", json::object());
  if (!data.contains(key) || !data[key].is_string()) return "";
  auto decoded = util::base64_decode(data[key].get<std::string>());
  return decoded ? *decoded : "";
}

json tls_secret(const std::string& name, const std::string& ns, const pki::CertifiedKey& pair,
                const std::string& ca_cert) {
  json secret{{"apiVersion", "v1"},
              {"kind", "Secret"},
              {"metadata", {{"name", name}, {"namespace", ns}}},
              {"type", "kubernetes.io/tls"},
              {"data",
               {{"tls.crt", util::base64_encode(pair.cert_pem)},
                {"tls.key", util::base64_encode(pair.key_pem)}}}};
  if (!ca_cert.empty()) secret["data"]["ca.crt"] = util::base64_encode(ca_cert);
  return secret;
}

// The pair a found Secret holds, when it comes from `ca_cert`.
std::optional<pki::CertifiedKey> kept_leaf(const std::optional<json>& found,
                                           const std::string& ca_cert) {
  const std::string cert = secret_value(found, "tls.crt");
  const std::string key = secret_value(found, "tls.key");
  if (cert.empty() || key.empty() || secret_value(found, "ca.crt") != ca_cert ||
      !pki::signed_by(cert, ca_cert)) {
    return std::nullopt;
  }
  return pki::CertifiedKey{cert, key};
}

json& container_args(json& deployment) {
  return deployment["spec"]["template"]["spec"]["containers"][0]["args"];
}

}  // namespace

std::string client_url(const EtcdMember& member) {
  return "https://" + member.client_ip + ":" + std::to_string(kEtcdClientPort);
}

std::string peer_url(const EtcdMember& member) {
  return "https://" + member.peer_address + ":" + std::to_string(kEtcdPeerPort);
}

Result<std::vector<json>> federation_etcd_secrets(const EtcdMember& member,
                                                  const EtcdSecretsFound& found,
                                                  const std::string& ns,
                                                  std::chrono::system_clock::time_point now) {
  pki::CertifiedKey ca{secret_value(found.ca, "tls.crt"), secret_value(found.ca, "tls.key")};
  if (ca.cert_pem.empty() || ca.key_pem.empty()) {
    FED_ASSIGN_OR_RETURN(ca, pki::make_ca("kubectl-fed federation etcd CA", kCaValidity, now));
  }

  std::optional<pki::CertifiedKey> serving;
  const auto& member_annotations =
      found.member ? (*found.member)["metadata"].value("annotations", json::object())
                   : json::object();
  if (member_annotations.value(std::string(kEtcdAddressesAnnotation), "") == addresses_of(member)) {
    serving = kept_leaf(found.member, ca.cert_pem);
  }
  if (!serving) {
    // A member serves its clients and is the client of its peers: one pair for both.
    std::vector<std::string> ips{"127.0.0.1", member.client_ip};
    if (member.peer_address != member.client_ip) ips.push_back(member.peer_address);
    FED_ASSIGN_OR_RETURN(serving,
                         pki::make_signed(ca, {member.name, {}, {"localhost"}, ips},
                                          pki::KeyUsage::ServerAndClient, kLeafValidity, now));
  }

  std::optional<pki::CertifiedKey> client = kept_leaf(found.manager_client, ca.cert_pem);
  if (!client) {
    FED_ASSIGN_OR_RETURN(client, pki::make_signed(ca, {"fed-manager", {"kubectl-fed"}, {}, {}},
                                                  pki::KeyUsage::Client, kLeafValidity, now));
  }

  json ca_secret = tls_secret(std::string(kEtcdCaSecret), ns, ca, "");
  ca_secret["type"] = "Opaque";  // a CA, not a serving pair
  json member_secret = tls_secret(std::string(kEtcdMemberSecret), ns, *serving, ca.cert_pem);
  member_secret["metadata"]["annotations"][std::string(kEtcdAddressesAnnotation)] =
      addresses_of(member);
  return std::vector<json>{
      std::move(ca_secret), std::move(member_secret),
      tls_secret(std::string(kManagerEtcdClientSecret), ns, *client, ca.cert_pem)};
}

void set_etcd_member_args(json& deployment, const EtcdMember& member,
                          const EtcdBootstrap& bootstrap) {
  json& args = container_args(deployment);
  const bool founding = bootstrap.initial_cluster.empty();
  for (auto& arg : args) {
    if (arg == "--data-dir=/var/lib/etcd") {
      arg = "--data-dir=/var/lib/etcd/" +
            (bootstrap.member_id.empty() ? std::string("founding") : bootstrap.member_id);
    }
    // Other hosts reach the member at the gateway's address only (the leader probes it there).
    if (arg == "--advertise-client-urls=https://$(HOST_IP):2479" &&
        member.peer_address != member.client_ip) {
      arg = arg.get<std::string>() + ",https://" + member.peer_address + ":" +
            std::to_string(kEtcdClientPort);
    }
  }
  args.push_back("--name=" + member.name);
  args.push_back("--initial-advertise-peer-urls=" + peer_url(member));
  args.push_back("--initial-cluster=" +
                 (founding ? member.name + "=" + peer_url(member) : bootstrap.initial_cluster));
  args.push_back(std::string("--initial-cluster-state=") + (founding ? "new" : "existing"));
  args.push_back("--initial-cluster-token=kubectl-fed-" + bootstrap.federation_id);
}

json federation_host(const EtcdMember& member) {
  return json{{"apiVersion", "fed.kubectl-fed.io/v1alpha1"},
              {"kind", "FederationHost"},
              {"metadata",
               {{"name", member.name}, {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
              {"spec", {{"etcdPeerURL", peer_url(member)}}}};
}

void set_manager_etcd_endpoint(json& deployment, const EtcdMember& member) {
  container_args(deployment).push_back("--leader-elect-etcd-endpoints=" + client_url(member));
}

Status add_federation_etcd(std::vector<json>& objects, const EtcdMember& member,
                           const EtcdSecretsFound& found, const EtcdBootstrap& bootstrap,
                           const std::string& ns) {
  bool etcd = false, manager = false;
  for (auto& o : objects) {
    if (o.value("kind", "") != "Deployment") continue;
    const std::string name = o["metadata"].value("name", "");
    if (name == "fed-etcd") {
      set_etcd_member_args(o, member, bootstrap);
      etcd = true;
    } else if (name == "fed-manager") {
      set_manager_etcd_endpoint(o, member);
      manager = true;
    }
  }
  if (!etcd || !manager) {
    return fail(ErrorCode::Internal,
                "embedded manifests lack the fed-etcd or fed-manager Deployment (rebuild "
                "kubectl-fed)");
  }
  FED_ASSIGN_OR_RETURN(auto secrets, federation_etcd_secrets(member, found, ns));
  auto at = std::find_if(objects.begin(), objects.end(),
                         [](const json& o) { return o.value("kind", "") == "Namespace"; });
  at = at == objects.end() ? objects.begin() : at + 1;
  objects.insert(at, secrets.begin(), secrets.end());
  return ok();
}

json redact_secret_data(json object) {
  if (object.value("kind", "") != "Secret" || !object.contains("data")) return object;
  for (auto& [key, value] : object["data"].items()) value = "<redacted>";
  return object;
}

}  // namespace fed::plugin
