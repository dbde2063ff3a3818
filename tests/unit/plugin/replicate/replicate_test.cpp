// kubectl fed replicate without a cluster: the checks that refuse bad flags and manifests
// before anything is read or written, the DeploymentReplication built from a -f manifest, the
// dry run (which never connects: the context's server is a closed port), and what the command
// decides and reports from a live object (outcome, --wait readiness, warnings, the result).

#include "plugin/replicate/replicate.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "plugin/replicate/replication_report.hpp"
#include "plugin/replicate/replication_spec.hpp"
#include "tests/unit/plugin/connect/fake_cluster.hpp"

using fed::ErrorCode;
using namespace fed::plugin;
using nlohmann::json;

namespace {

constexpr const char* kWebYaml = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
  annotations:
    team: shop
    deployment.kubernetes.io/revision: "3"
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      creationTimestamp: null
      labels: {app: web, tier: front}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
)";

ReplicateOptions web() {
  ReplicateOptions o;
  o.name = "web";
  o.file = "web.yaml";
  return o;
}

json deployment(const std::string& yaml = kWebYaml) {
  auto d = deployment_from_manifest(yaml, "-f web.yaml");
  REQUIRE(d);
  return *d;
}

// The Invalid error of building the replication, its message.
std::string error_of(const ReplicateOptions& o, const json& d = deployment(),
                     const std::string& ns = "shop") {
  auto r = replication_from_deployment(o, ns, d, "-f web.yaml");
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == ErrorCode::Invalid);
  return r.error().message();
}

std::string manifest_error(const std::string& yaml) {
  auto r = deployment_from_manifest(yaml, "-f web.yaml");
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == ErrorCode::Invalid);
  return r.error().message();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Options that reach no cluster: the context's server is a closed port, so any connection
// attempt fails (Unavailable), and -n spares even reading the kubeconfig.
GlobalOptions offline(const test::FakeCluster& cluster, OutputFormat format) {
  GlobalOptions g;
  g.kubeconfig = cluster.kubeconfig();
  g.context = "closed";
  g.namespace_name = "shop";
  g.output = format;
  return g;
}

// web.yaml in the fake cluster's temporary directory.
std::string web_file(const test::FakeCluster& cluster) {
  const auto path = cluster.dir() / "web.yaml";
  std::ofstream(path) << kWebYaml;
  return path.string();
}

}  // namespace

TEST_CASE("replicate: the DeploymentReplication of a -f Deployment") {
  auto o = web();
  o.generation_labels = {"topology.kubernetes.io/region", "provider"};
  o.selectors = {"topology.kubernetes.io/region notin (b)"};
  auto r = replication_from_deployment(o, "shop", deployment(), "-f web.yaml");
  REQUIRE(r);
  CHECK(*r == json::parse(R"({
    "apiVersion": "fed.kubectl-fed.io/v1alpha1",
    "kind": "DeploymentReplication",
    "metadata": {"name": "web", "namespace": "shop",
                 "labels": {"app.kubernetes.io/managed-by": "kubectl-fed"}},
    "spec": {
      "template": {
        "metadata": {"labels": {"app": "web"}, "annotations": {"team": "shop"}},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web", "tier": "front"}},
                              "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}}
      },
      "generationLabels": ["topology.kubernetes.io/region", "provider"],
      "selectedClusters": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "topology.kubernetes.io/region", "operator": "NotIn", "values": ["b"]}]}]}
    }})"));
}

TEST_CASE("replicate: no generation label and no selector leave the fields out") {
  auto r = replication_from_deployment(web(), "shop", deployment(), "-f web.yaml");
  REQUIRE(r);
  CHECK_FALSE((*r)["spec"].contains("generationLabels"));
  CHECK_FALSE((*r)["spec"].contains("selectedClusters"));
}

TEST_CASE("replicate: NAME must leave room for the replicas' suffix") {
  auto o = web();
  o.name = std::string(57, 'a');
  CHECK(replication_from_deployment(o, "shop", deployment(), "-f web.yaml"));
  o.name = std::string(58, 'a');
  const std::string m = error_of(o);
  CHECK(has(m, "NAME"));
  CHECK(has(m, "58 characters: at most 57"));
  o.name = "Web_1";
  CHECK(has(error_of(o), "not a DNS label"));
  o.name = "";
  CHECK(has(error_of(o), "needs NAME"));
}

TEST_CASE("replicate: exactly one of -f and --from-deployment") {
  auto o = web();
  o.from_deployment = "api";
  auto m = error_of(o);
  CHECK(has(m, "both"));
  CHECK(has(m, "-f"));
  CHECK(has(m, "--from-deployment"));
  o.file.clear();
  o.from_deployment.clear();
  m = error_of(o);
  CHECK(has(m, "neither"));
  CHECK(has(m, "--from-deployment"));
}

TEST_CASE("replicate: --generation-label keys are label keys, each given once") {
  auto o = web();
  o.generation_labels = {"region", "provider", "region"};
  auto m = error_of(o);
  CHECK(has(m, "--generation-label region is given twice"));
  o.generation_labels = {"not a key"};
  CHECK(has(error_of(o), "--generation-label \"not a key\": not a label key"));
  o.generation_labels = {"-region"};
  CHECK(has(error_of(o), "not a label key"));
}

TEST_CASE("replicate: --selector is parsed as offload parses it") {
  auto o = web();
  o.selectors = {"region in (eu"};
  CHECK(has(error_of(o), "--selector[0] \"region in (eu\""));
  o.selectors = {"region=eu", "cores>four"};
  CHECK(has(error_of(o), "--selector"));
  o.selectors = {"region in (eu,us),tier!=spot", "gpu"};
  auto r = replication_from_deployment(o, "shop", deployment(), "-f web.yaml");
  REQUIRE(r);
  CHECK((*r)["spec"]["selectedClusters"] == json::parse(R"({"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "region", "operator": "In", "values": ["eu", "us"]},
                          {"key": "tier", "operator": "NotIn", "values": ["spot"]}]},
    {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}]})"));
}

TEST_CASE("replicate: the namespace must be a namespace name and the manifest's own") {
  CHECK(has(error_of(web(), deployment(), "Shop"), "-n \"Shop\": not a namespace name"));
  json d = deployment();
  d["metadata"]["namespace"] = "other";
  const auto m = error_of(web(), d);
  CHECK(has(m, "metadata.namespace is other"));
  CHECK(has(m, "pass -n other"));
  d["metadata"]["namespace"] = "shop";
  CHECK(replication_from_deployment(web(), "shop", d, "-f web.yaml"));
}

TEST_CASE("replicate: the pod labels must carry the selector's matchLabels") {
  json d = deployment();
  d["spec"]["selector"]["matchLabels"]["tier"] = "back";
  auto m = error_of(web(), d);
  CHECK(has(m, "-f web.yaml: spec.template.metadata.labels lacks tier=back"));
  CHECK(has(m, "spec.selector.matchLabels"));
  d["spec"]["template"]["metadata"].erase("labels");
  d["spec"]["selector"] = json{{"matchLabels", {{"app", "web"}}}};
  CHECK(has(error_of(web(), d), "lacks app=web"));
  d["spec"]["selector"] = json::object();
  CHECK(has(error_of(web(), d), "spec.selector is empty"));
}

TEST_CASE("replicate: a Deployment needs spec.selector and spec.template") {
  json d = deployment();
  d["spec"].erase("selector");
  CHECK(has(error_of(web(), d), "-f web.yaml: spec.selector is required"));
  d = deployment();
  d["spec"].erase("template");
  CHECK(has(error_of(web(), d), "-f web.yaml: spec.template is required"));
  d = deployment();
  d["spec"]["replicas"] = -3;
  CHECK(has(error_of(web(), d),
            "-f web.yaml: spec.replicas must be a whole number 0 or more, not -3"));
  d["spec"]["replicas"] = "3";
  CHECK(has(error_of(web(), d), "not \"3\""));
  d["spec"]["replicas"] = 0;
  CHECK(replication_from_deployment(web(), "shop", d, "-f web.yaml"));
}

TEST_CASE("replicate -f: malformed YAML, other kinds and several documents are refused") {
  CHECK(has(manifest_error("kind: Deployment\nspec: [\n"), "-f web.yaml: not valid YAML"));
  auto m = manifest_error("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n");
  CHECK(has(m, "-f web.yaml: apiVersion \"v1\", kind \"Service\" is not a Deployment"));
  CHECK(has(manifest_error("apiVersion: extensions/v1beta1\nkind: Deployment\n"),
            "not a Deployment"));
  CHECK(has(manifest_error(std::string(kWebYaml) + "---\n" + kWebYaml), "2 YAML documents"));
  CHECK(has(manifest_error(""), "0 YAML documents"));
  CHECK(has(manifest_error("- a\n- b\n"), "not a mapping"));
}

TEST_CASE("replicate --dry-run=client needs the host, as the real run does") {
  test::FakeCluster cluster;
  auto o = web();
  o.file = web_file(cluster);
  o.dry_run = DryRun::Client;
  std::ostringstream out, err;
  Output output(out, err, OutputFormat::Json, Progress::Hidden);
  auto r = run_replicate(offline(cluster, OutputFormat::Json), o, output);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == fed::ErrorCode::Unavailable);
  CHECK(out.str().empty());
}

TEST_CASE("replicate: bad input is refused before any cluster is asked") {
  test::FakeCluster cluster;
  std::ostringstream out, err;
  Output output(out, err, OutputFormat::Table, Progress::Hidden);
  auto o = web();
  o.file = web_file(cluster);
  o.name = std::string(58, 'x');
  auto s = run_replicate(offline(cluster, OutputFormat::Table), o, output);
  REQUIRE_FALSE(s);
  CHECK(s.error().code() == ErrorCode::Invalid);  // not the closed port's Unavailable

  o = web();
  o.file = (cluster.dir() / "missing.yaml").string();
  s = run_replicate(offline(cluster, OutputFormat::Table), o, output);
  REQUIRE_FALSE(s);
  CHECK(s.error().code() == ErrorCode::Invalid);
  CHECK(has(s.error().message(), "-f " + o.file));
  CHECK(out.str().empty());
}

TEST_CASE("replicate: unchanged only when the live spec is the desired one") {
  auto desired = replication_from_deployment(web(), "shop", deployment(), "-f web.yaml");
  REQUIRE(desired);
  CHECK(replication_outcome(std::nullopt, *desired) == ApplyOutcome::Created);
  // The server's copy: its own metadata and status, numbers parsed as unsigned.
  json live = json::parse(desired->dump());
  live["metadata"]["generation"] = 1;
  live["metadata"]["resourceVersion"] = "42";
  live["status"] = {{"observedGeneration", 1}};
  CHECK(replication_outcome(live, *desired) == ApplyOutcome::Unchanged);
  // A generation label dropped from the flags is a change although desired is covered.
  live["spec"]["generationLabels"] = {"region"};
  CHECK(replication_outcome(live, *desired) == ApplyOutcome::Configured);
  live["spec"].erase("generationLabels");
  live["spec"]["template"]["spec"]["replicas"] = 3;
  CHECK(replication_outcome(live, *desired) == ApplyOutcome::Configured);
  live["spec"]["template"]["spec"]["replicas"] = 2;
  live["metadata"].erase("labels");
  CHECK(replication_outcome(live, *desired) == ApplyOutcome::Configured);
}

TEST_CASE("replicate --wait: Ready True for the spec the manager has seen") {
  const auto replication = [](std::int64_t generation, std::int64_t observed, const char* ready,
                              const char* message) {
    return json{{"metadata", {{"generation", generation}}},
                {"status",
                 {{"observedGeneration", observed},
                  {"conditions", json::array({{{"type", "Ready"},
                                               {"status", ready},
                                               {"reason", "Waiting"},
                                               {"message", message}}})}}}};
  };
  CHECK(replication_ready(replication(2, 2, "True", "")));
  CHECK_FALSE(replication_ready(replication(3, 2, "True", "")));
  CHECK_FALSE(replication_ready(replication(2, 2, "False", "region=b: 0/2 available")));
  CHECK_FALSE(replication_ready(json{{"metadata", {{"generation", 1}}}}));
  CHECK(replication_waiting_reason(replication(2, 2, "False", "region=b: 0/2 available")) ==
        "Ready False: region=b: 0/2 available");
  CHECK(replication_waiting_reason(replication(3, 2, "True", "")) ==
        "the manager has not seen generation 3 yet (observed 2)");
  CHECK(replication_waiting_reason(
            json{{"metadata", {{"generation", 1}}}, {"status", {{"observedGeneration", 1}}}}) ==
        "no Ready condition yet");
}

TEST_CASE("replicate: the result lists each replica with its combination") {
  const json replication = json::parse(R"({
    "metadata": {"name": "web", "namespace": "shop", "generation": 1},
    "status": {"currentDeployment": {
      "web-4dsfs": {"generationLabelsValues": {"provider": "A", "region": "a"},
                    "deploymentLastCondition": {"type": "Available", "status": "True",
                                                "reason": "MinimumReplicasAvailable"}},
      "web-x8k2p": {"generationLabelsValues": {"provider": "B", "region": "a"},
                    "deploymentLastCondition": {"type": "Progressing", "status": "True",
                                                "reason": "ReplicaSetUpdated"}},
      "web-zz9qq": {"generationLabelsValues": {}}}}})");
  // Without the Deployments, each entry's last condition is all there is to go by.
  const json doc =
      replicate_result(replication, ApplyOutcome::Configured, {"careful"}, std::nullopt);
  CHECK(doc == json::parse(R"({
    "name": "web", "namespace": "shop", "result": "configured",
    "replicas": [
      {"name": "web-4dsfs", "generationLabelsValues": {"provider": "A", "region": "a"},
       "available": true},
      {"name": "web-x8k2p", "generationLabelsValues": {"provider": "B", "region": "a"},
       "available": false},
      {"name": "web-zz9qq", "generationLabelsValues": {}, "available": false}],
    "warnings": ["careful"]})"));
  CHECK(render_table(replicas_table(replication, std::nullopt)) ==
        "REPLICA     COMBINATION           AVAILABLE   LAST CONDITION\n"
        "web-4dsfs   provider=A,region=a   True        Available=True MinimumReplicasAvailable\n"
        "web-x8k2p   provider=B,region=a   False       Progressing=True ReplicaSetUpdated\n"
        "web-zz9qq   -                     False       -\n");
  CHECK(replicate_result(json{{"metadata", {{"name", "web"}, {"namespace", "shop"}}}},
                         ApplyOutcome::Unchanged, {}, std::nullopt)["replicas"] == json::array());

  // With them, their Available condition decides, whatever condition is newest.
  const json deployments = json::parse(R"({"items": [
    {"metadata": {"name": "web-x8k2p", "generation": 2},
     "status": {"observedGeneration": 2, "conditions": [
       {"type": "Available", "status": "True"}, {"type": "Progressing", "status": "True"}]}},
    {"metadata": {"name": "web-4dsfs", "generation": 3},
     "status": {"observedGeneration": 2, "conditions": [
       {"type": "Available", "status": "True"}]}},
    {"metadata": {"name": "web-zz9qq", "generation": 1},
     "status": {"observedGeneration": 1, "conditions": [
       {"type": "Available", "status": "False"}]}}]})");
  const auto available = available_deployments(deployments);
  CHECK(available == std::set<std::string>{"web-x8k2p"});
  const json replicas =
      replicate_result(replication, ApplyOutcome::Unchanged, {}, available)["replicas"];
  CHECK(replicas[0]["available"] == false);  // not yet for its current spec
  CHECK(replicas[1]["available"] == true);
  CHECK(replicas[2]["available"] == false);
}

TEST_CASE("replicate warns when no virtual node carries every generation label") {
  const json nodes{{"items", json::array({{{"metadata", {{"labels", {{"region", "a"}}}}}},
                                          {{"metadata", {{"labels", {{"provider", "B"}}}}}}})}};
  const std::string w = generation_label_warning(nodes, {"region", "provider"});
  CHECK(has(w, "no virtual node carries every generation label (region, provider; 2 virtual"));
  CHECK(generation_label_warning(nodes, {"region"}).empty());
  CHECK(generation_label_warning(nodes, {}).empty());
  CHECK(has(no_offloading_warning("shop"), "kubectl fed offload namespace shop"));
}
