// run_replicate and run_unreplicate against a loopback fake host API server that keeps one
// DeploymentReplication in memory: created, then unchanged with no second write, configured
// when a flag is dropped; the warnings; --from-deployment's template; --wait's timeout naming
// the Ready condition's message; unreplicate of nothing; dry runs; a member refused as host.

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "plugin/cli/exit_codes.hpp"
#include "plugin/replicate/replicate.hpp"
#include "shared/http/server.hpp"
#include "tests/unit/plugin/connect/fake_cluster.hpp"

using namespace fed::plugin;
using fed::ErrorCode;
using nlohmann::json;

namespace {

constexpr const char* kNotFound =
    R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})";
constexpr const char* kReplication =
    "/apis/fed.kubectl-fed.io/v1alpha1/namespaces/shop/deploymentreplications/web";

// The host: its federation ConfigMap, namespace shop (not offloaded), two virtual nodes labelled
// region only, the Deployment api, and the replication `web` as the last apply left it.
class FakeHost {
 public:
  explicit FakeHost(const std::string& role = "host") {
    fed::http::ServerOptions o;
    o.bind_address = "127.0.0.1:0";
    auto server = fed::http::Server::create(o);
    REQUIRE(server);
    server_ = std::move(server).value();
    const json cm{{"data", {{"clusterID", "c1"}, {"role", role}}}};
    serve("/api/v1/namespaces/kubectl-fed-system/configmaps/federation", cm);
    serve("/api/v1/namespaces/shop", json{{"metadata", {{"name", "shop"}}}});
    serve("/api/v1/nodes",
          json{{"items", json::array({{{"metadata", {{"labels", {{"region", "a"}}}}}},
                                      {{"metadata", {{"labels", {{"region", "b"}}}}}}})}});
    serve("/apis/apps/v1/namespaces/shop/deployments", json{{"items", json::array()}});
    serve("/apis/apps/v1/namespaces/shop/deployments/api", json::parse(R"({
      "apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "api", "namespace": "shop", "uid": "u1", "resourceVersion": "7",
                   "labels": {"app": "api"},
                   "annotations": {"deployment.kubernetes.io/revision": "4",
                                   "kubectl.kubernetes.io/last-applied-configuration": "{}",
                                   "owner": "team-a"}},
      "spec": {"selector": {"matchLabels": {"app": "api"}},
               "template": {"metadata": {"creationTimestamp": null, "labels": {"app": "api"}},
                            "spec": {"containers": [{"name": "api", "image": "api:2"}]}}},
      "status": {"replicas": 1, "availableReplicas": 1}})"));
    server_->handle(kReplication,
                    [this](const fed::http::Request& r) {
                      std::lock_guard lock(mu_);
                      if (r.method == "PATCH") {
                        ++writes_;
                        last_query_ = r.query;
                        json applied = json::parse(r.body);
                        const auto generation =
                            stored_.is_null() ? std::int64_t{1}
                                              : stored_["metadata"].value("generation", 1) + 1;
                        applied["metadata"]["generation"] = generation;
                        if (!stored_.is_null() && stored_.contains("status")) {
                          applied["status"] = stored_["status"];
                        }
                        stored_ = applied;
                      } else if (r.method == "DELETE") {
                        if (stored_.is_null()) return fed::http::Response::json(404, kNotFound);
                        stored_ = nullptr;
                        return fed::http::Response::json(200, "{}");
                      }
                      if (stored_.is_null()) return fed::http::Response::json(404, kNotFound);
                      return fed::http::Response::json(200, stored_.dump());
                    },
                    {"GET", "PATCH", "DELETE"});
    REQUIRE(server_->start());
    std::ofstream(cluster_.dir() / "host.yaml")
        << "apiVersion: v1\nkind: Config\nclusters:\n- name: h\n  cluster:\n    server: "
           "http://127.0.0.1:"
        << server_->port()
        << "\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: c1\n  context: "
           "{cluster: h, user: u}\ncurrent-context: c1\n";
    std::ofstream(cluster_.dir() / "web.yaml") << R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
)";
  }
  ~FakeHost() { server_->stop(); }

  GlobalOptions global(OutputFormat format = OutputFormat::Json) const {
    GlobalOptions g;
    g.kubeconfig = (cluster_.dir() / "host.yaml").string();
    g.namespace_name = "shop";
    g.output = format;
    return g;
  }
  std::string web_file() const { return (cluster_.dir() / "web.yaml").string(); }
  int writes() {
    std::lock_guard lock(mu_);
    return writes_;
  }
  std::string last_query() {
    std::lock_guard lock(mu_);
    return last_query_;
  }
  json stored() {
    std::lock_guard lock(mu_);
    return stored_;
  }
  // What the manager would report.
  void set_status(json status) {
    std::lock_guard lock(mu_);
    stored_["status"] = std::move(status);
  }

 private:
  void serve(const std::string& path, json body) {
    server_->handle(path, [body = std::move(body)](const fed::http::Request&) {
      return fed::http::Response::json(200, body.dump());
    });
  }

  test::FakeCluster cluster_;  // only for its temporary directory
  std::unique_ptr<fed::http::Server> server_;
  std::mutex mu_;
  json stored_ = nullptr;
  int writes_ = 0;
  std::string last_query_;
};

struct Run {
  fed::Status status;
  std::string out, err;
};

Run replicate(FakeHost& host, const ReplicateOptions& o, OutputFormat format = OutputFormat::Json) {
  std::ostringstream out, err;
  Output output(out, err, format, Progress::Hidden);
  auto status = run_replicate(host.global(format), o, output);
  return {std::move(status), out.str(), err.str()};
}

ReplicateOptions web(const FakeHost& host) {
  ReplicateOptions o;
  o.name = "web";
  o.file = host.web_file();
  o.generation_labels = {"region", "provider"};
  return o;
}

}  // namespace

TEST_CASE("replicate applies once; the same input again is unchanged, a dropped flag not") {
  FakeHost host;
  Run first = replicate(host, web(host));
  REQUIRE_MESSAGE(first.status, (first.status ? "" : first.status.error().message()));
  const json doc = json::parse(first.out);
  CHECK(doc["result"] == "created");
  CHECK(doc["name"] == "web");
  CHECK(doc["namespace"] == "shop");
  CHECK(doc["replicas"] == json::array());
  REQUIRE(doc["warnings"].size() == 2);
  CHECK(doc["warnings"][0].get<std::string>().find("namespace shop is not offloaded") == 0);
  CHECK(doc["warnings"][1].get<std::string>().find("(region, provider; 2 virtual nodes)") !=
        std::string::npos);
  CHECK(first.err.find("warning: namespace shop is not offloaded") == 0);
  CHECK(host.writes() == 1);
  CHECK(host.last_query().find("fieldManager=kubectl-fed") != std::string::npos);
  CHECK(host.stored()["spec"]["generationLabels"] == json{"region", "provider"});

  Run again = replicate(host, web(host));
  REQUIRE(again.status);
  CHECK(json::parse(again.out)["result"] == "unchanged");
  CHECK(host.writes() == 1);

  auto fewer = web(host);
  fewer.generation_labels = {"region"};
  Run changed = replicate(host, fewer);
  REQUIRE(changed.status);
  CHECK(json::parse(changed.out)["result"] == "configured");
  CHECK(host.writes() == 2);
  CHECK(host.stored()["spec"]["generationLabels"] == json{"region"});
}

TEST_CASE("replicate --from-deployment keeps the workload, not the object") {
  FakeHost host;
  ReplicateOptions o;
  o.name = "api";
  o.from_deployment = "api";
  o.dry_run = DryRun::Client;
  Run run = replicate(host, o);
  REQUIRE_MESSAGE(run.status, (run.status ? "" : run.status.error().message()));
  const json printed = json::parse(run.out);
  CHECK(printed["metadata"]["name"] == "api");
  CHECK(printed["spec"]["template"] == json::parse(R"({
    "metadata": {"labels": {"app": "api"}, "annotations": {"owner": "team-a"}},
    "spec": {"selector": {"matchLabels": {"app": "api"}},
             "template": {"metadata": {"labels": {"app": "api"}},
                          "spec": {"containers": [{"name": "api", "image": "api:2"}]}}}})"));
  CHECK(host.writes() == 0);

  o.from_deployment = "nope";
  run = replicate(host, o);
  REQUIRE_FALSE(run.status);
  CHECK(exit_code_for(run.status.error()) == ExitCode::NotFound);
  CHECK(run.status.error().message().find("deployment nope not found in namespace shop") !=
        std::string::npos);
}

TEST_CASE("replicate --wait: done on Ready True, else times out with the Ready message") {
  FakeHost host;
  REQUIRE(replicate(host, web(host)).status);
  host.set_status(json::parse(R"({"observedGeneration": 1, "conditions": [
    {"type": "Ready", "status": "False", "reason": "ReplicasNotAvailable",
     "message": "1 of 2 replicas not available yet: web-b2c3d"}]})"));
  auto o = web(host);
  o.wait = true;
  o.timeout = std::chrono::milliseconds(1);
  Run late = replicate(host, o);
  REQUIRE_FALSE(late.status);
  CHECK(exit_code_for(late.status.error()) == ExitCode::Unavailable);
  CHECK(late.status.error().message().find("1 of 2 replicas not available yet: web-b2c3d") !=
        std::string::npos);

  host.set_status(json::parse(R"({"observedGeneration": 1,
    "conditions": [{"type": "Ready", "status": "True", "reason": "ReplicasAvailable"}],
    "currentDeployment": {"web-a1b2c": {"generationLabelsValues": {"region": "a"},
      "deploymentLastCondition": {"type": "Available", "status": "True",
                                  "reason": "MinimumReplicasAvailable"}}}})"));
  Run ready = replicate(host, o, OutputFormat::Table);
  REQUIRE_MESSAGE(ready.status, (ready.status ? "" : ready.status.error().message()));
  // The Deployments list is empty here, so no replica is known to be Available.
  CHECK(ready.out ==
        "deploymentreplication/web in shop unchanged\n"
        "REPLICA     COMBINATION   AVAILABLE   LAST CONDITION\n"
        "web-a1b2c   region=a      False       Available=True MinimumReplicasAvailable\n");
}

TEST_CASE("unreplicate deletes; a second time there is nothing to delete, which succeeds") {
  FakeHost host;
  REQUIRE(replicate(host, web(host)).status);
  UnreplicateOptions o;
  o.name = "web";
  o.wait = true;
  std::ostringstream out, err;
  Output output(out, err, OutputFormat::Json, Progress::Hidden);
  REQUIRE(run_unreplicate(host.global(), o, output));
  CHECK(json::parse(out.str()) ==
        json{{"name", "web"}, {"namespace", "shop"}, {"result", "deleted"}});
  CHECK(host.stored().is_null());
  // A cleanup that runs twice does not fail, as unoffload and peer --remove do not.
  std::ostringstream again_out, again_err;
  Output again_output(again_out, again_err, OutputFormat::Json, Progress::Hidden);
  REQUIRE(run_unreplicate(host.global(), o, again_output));
  CHECK(json::parse(again_out.str()) ==
        json{{"name", "web"}, {"namespace", "shop"}, {"result", "notReplicated"}});
}

TEST_CASE("replicate --dry-run=client checks the host as the real run does and writes nothing") {
  FakeHost host;
  auto o = web(host);
  o.dry_run = DryRun::Client;
  const Run dry = replicate(host, o, OutputFormat::Table);
  REQUIRE(dry.status);
  CHECK(dry.out == "deploymentreplication/web in shop (dry run)\n");
  CHECK(host.writes() == 0);
  CHECK(host.stored().is_null());

  std::ostringstream out, err;
  Output output(out, err, OutputFormat::Json, Progress::Hidden);
  GlobalOptions elsewhere = host.global();
  elsewhere.namespace_name = "nowhere";
  auto missing = run_replicate(elsewhere, o, output);
  REQUIRE_FALSE(missing);
  CHECK(exit_code_for(missing.error()) == ExitCode::NotFound);
  CHECK(missing.error().message().find("namespace nowhere does not exist") != std::string::npos);
}

TEST_CASE("replicate refuses a cluster that is not the federation's host") {
  FakeHost member("member");
  Run run = replicate(member, web(member));
  REQUIRE_FALSE(run.status);
  CHECK(run.status.error().code() == ErrorCode::NotFound);
  CHECK(run.status.error().message().find("not a federation host") != std::string::npos);
  CHECK(member.writes() == 0);
}
