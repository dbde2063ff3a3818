// run_init --dry-run=client against a loopback fake API server that answers only GETs: the
// output parses as YAML and lists every object; the discovered PodCIDR and ServiceCIDR are in
// the federation ConfigMap; a discovered ServiceCIDR overlapping --pod-cidr is refused.
// Any write would reach an unrouted method and fail the command.

#include "plugin/membership/init.hpp"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "plugin/manifests/render.hpp"
#include "shared/fedapi/manifest.hpp"
#include "shared/http/server.hpp"

using namespace fed::plugin;
using nlohmann::json;

namespace {

constexpr const char* kNotFound =
    R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"configmaps \"federation\" not found"})";

json node(const std::string& name, const std::string& cidr, bool ready, const std::string& ip) {
  return {
      {"metadata", {{"name", name}}},
      {"spec", {{"podCIDR", cidr}, {"podCIDRs", json::array({cidr})}}},
      {"status",
       {{"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})},
        {"addresses", json::array({{{"type", "InternalIP"}, {"address", ip}}})}}}};
}

const json& arg_list(const json& items, const std::string& deployment) {
  for (const auto& o : items) {
    if (o["kind"] == "Deployment" && o["metadata"]["name"] == deployment) {
      return o["spec"]["template"]["spec"]["containers"][0]["args"];
    }
  }
  FAIL("no Deployment " << deployment);
  static const json none;
  return none;
}

bool has_arg(const json& args, const std::string& arg) {
  for (const auto& a : args) {
    if (a == arg) return true;
  }
  return false;
}

class FakeHost {
 public:
  FakeHost() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fed-init-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
    fed::http::ServerOptions o;
    o.bind_address = "127.0.0.1:0";
    auto server = fed::http::Server::create(o);
    REQUIRE(server);
    server_ = std::move(server).value();
    server_->handle(
        "/api/v1/namespaces/kubectl-fed-system/configmaps/federation",
        [](const fed::http::Request&) { return fed::http::Response::json(404, kNotFound); });
    server_->handle("/api/v1/nodes", [](const fed::http::Request&) {
      const json list{
          {"kind", "NodeList"},
          {"apiVersion", "v1"},
          {"metadata", {{"resourceVersion", "1"}}},
          {"items", json::array({node("node2", "10.241.1.0/24", true, "172.30.0.12"),
                                 node("node1", "10.241.0.0/24", false, "172.30.0.11")})}};
      return fed::http::Response::json(200, list.dump());
    });
    server_->handle(
        "/apis/networking.k8s.io/v1/servicecidrs/kubernetes", [](const fed::http::Request&) {
          return fed::http::Response::json(
              200, R"({"metadata":{"name":"kubernetes"},"spec":{"cidrs":["10.101.0.0/16"]}})");
        });
    REQUIRE(server_->start());
    std::ofstream(kubeconfig()) << "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n"
                                   "  cluster:\n    server: http://127.0.0.1:"
                                << server_->port()
                                << "\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n"
                                   "- name: C1\n  context: {cluster: fake, user: u}\n"
                                   "current-context: C1\n";
  }
  ~FakeHost() {
    server_->stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string kubeconfig() const { return (dir_ / "kubeconfig").string(); }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<fed::http::Server> server_;
};

}  // namespace

TEST_CASE("init --dry-run=client -o yaml prints every object and writes nothing") {
  FakeHost host;
  GlobalOptions global;
  global.kubeconfig = host.kubeconfig();
  std::ostringstream out, err;
  Output o(out, err, OutputFormat::Yaml, Progress::Hidden);
  InitOptions options;
  options.dry_run = DryRun::Client;
  options.image = "example/fed-agent:1";
  const auto status = run_init(global, options, o);
  REQUIRE_MESSAGE(status, (status ? "" : status.error().message()));

  auto docs = fed::fedapi::parse_manifests(out.str(), "stdout");
  REQUIRE(docs);
  REQUIRE(docs->size() == 1);
  const json& items = (*docs)[0]["items"];
  // The cluster id is the context name, lower-cased; the ranges were discovered.
  ClusterIdentity id{"c1", FederationRole::Host, "10.241.0.0/23", "10.101.0.0/16", "c1"};
  auto expected = render_host(
      id, RenderOptions{"example/fed-agent:1", std::string(fed::fedapi::kNamespace), {}});
  REQUIRE(expected);
  // The manifests' objects, and the federation etcd's Secrets after the Namespace.
  std::vector<json> manifests;
  std::vector<std::string> secrets;
  std::vector<std::string> hosts;
  for (const auto& item : items) {
    if (item["kind"] == "FederationHost") {
      hosts.push_back(item["metadata"]["name"]);
      CHECK(item["spec"]["etcdPeerURL"] == "https://172.30.0.12:2480");
      continue;
    }
    if (item["kind"] != "Secret") {
      manifests.push_back(item);
      continue;
    }
    secrets.push_back(item["metadata"]["name"]);
    // Keys are never printed.
    for (const auto& [key, value] : item["data"].items()) CHECK(value == "<redacted>");
  }
  CHECK(secrets ==
        std::vector<std::string>{"fed-etcd-ca", "fed-etcd-member", "fed-manager-etcd-client"});
  REQUIRE(manifests.size() == expected->size());
  for (std::size_t i = 0; i < manifests.size(); ++i) {
    CHECK(manifests[i]["kind"] == (*expected)[i]["kind"]);
    CHECK(manifests[i]["metadata"]["name"] == (*expected)[i]["metadata"]["name"]);
  }
  // The member runs on the gateway (node2, the first Ready node): its InternalIP serves the
  // managers, and with no ExternalIP also the peers.
  CHECK(has_arg(arg_list(items, "fed-etcd"), "--initial-cluster=c1=https://172.30.0.12:2480"));
  CHECK(has_arg(arg_list(items, "fed-etcd"), "--name=c1"));
  CHECK(has_arg(arg_list(items, "fed-manager"),
                "--leader-elect-etcd-endpoints=https://172.30.0.12:2479"));
  CHECK(hosts == std::vector<std::string>{"c1"});  // the first host registers itself
  const json& cm = manifests.back();
  CHECK(cm["kind"] == "ConfigMap");
  CHECK(cm["data"]["podCIDR"] == "10.241.0.0/23");
  CHECK(cm["data"]["serviceCIDR"] == "10.101.0.0/16");
  CHECK(cm["data"]["clusterID"] == "c1");
}

TEST_CASE("init --dry-run=client in a table lists the objects") {
  FakeHost host;
  GlobalOptions global;
  global.kubeconfig = host.kubeconfig();
  std::ostringstream out, err;
  Output o(out, err, OutputFormat::Table, Progress::Hidden);
  InitOptions options;
  options.dry_run = DryRun::Client;
  options.cluster_id = "eu-west";
  REQUIRE(run_init(global, options, o));
  CHECK(out.str().find("daemonset/fed-agent (dry run)\n") != std::string::npos);
  CHECK(out.str().find("configmap/federation (dry run)\n") != std::string::npos);
}

TEST_CASE("init refuses a --pod-cidr that overlaps the discovered ServiceCIDR") {
  FakeHost host;
  GlobalOptions global;
  global.kubeconfig = host.kubeconfig();
  std::ostringstream out, err;
  Output o(out, err, OutputFormat::Table, Progress::Hidden);
  InitOptions options;
  options.pod_cidr = "10.96.0.0/11";
  const auto status = run_init(global, options, o);
  REQUIRE_FALSE(status);
  CHECK(status.error().code() == fed::ErrorCode::Invalid);
  CHECK(status.error().message().find("--pod-cidr 10.96.0.0/11 overlaps") != std::string::npos);
  CHECK(out.str().empty());
}

TEST_CASE(
    "init refuses a --pod-cidr that leaves a node's podCIDR out, naming the range that fits") {
  FakeHost host;
  GlobalOptions global;
  global.kubeconfig = host.kubeconfig();
  std::ostringstream out, err;
  Output o(out, err, OutputFormat::Table, Progress::Hidden);
  InitOptions options;
  options.pod_cidr = "10.241.1.0/24";  // node2's only
  const auto status = run_init(global, options, o);
  REQUIRE_FALSE(status);
  CHECK(status.error().code() == fed::ErrorCode::Invalid);
  CHECK(status.error().message() ==
        "invalid --pod-cidr 10.241.1.0/24: node node1's spec.podCIDR 10.241.0.0/24 is outside "
        "it, so its pods would not be reached; give a range that contains every node's "
        "(10.241.0.0/23 does) or leave --pod-cidr out to use that");
  CHECK(out.str().empty());
  options.pod_cidr = "10.241.0.0/16";  // wider than the nodes': fine
  options.dry_run = DryRun::Client;
  CHECK(run_init(global, options, o));
}
