// kubectl fed reconfigure's flag checks (through the agent's allow-list), FeatureConfig files
// and the batches nodes roll in.

#include "plugin/reconfigure/reconfigure_plan.hpp"

#include <doctest/doctest.h>

#include "plugin/cli/global_options.hpp"

using namespace fed::plugin;
using nlohmann::json;

namespace {

ReconfigureOptions with_set(std::vector<std::string> set) {
  ReconfigureOptions o;
  o.set = std::move(set);
  return o;
}

std::string invalid_message(const ReconfigureOptions& o, std::string_view text = "",
                            std::string_view conflist = "") {
  auto plan = make_plan(o, text, conflist);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().code() == fed::ErrorCode::Invalid);
  return plan.error().message();
}

}  // namespace

TEST_CASE("a valid --set gives a plan that leaves the paths to the nodes' kubelets") {
  auto plan = make_plan(with_set({"cpuManagerPolicy=static", "reservedSystemCPUs=0"}), "");
  REQUIRE(plan);
  CHECK(plan->set_items ==
        std::vector<std::string>{"cpuManagerPolicy=static", "reservedSystemCPUs=0"});
  CHECK(plan->changes.changes.size() == 2);
  CHECK(plan->changes.state_files == std::vector<std::string>{"cpu_manager_state"});
  CHECK(plan->target.discovers());
  CHECK(plan->target.kubelet_config.empty());
  CHECK(plan->target.root_dir.empty());
  CHECK(plan->target.restart_command.empty());
  CHECK(plan->max_unavailable == 1);
  CHECK(plan->drain == DrainMode::Off);
  CHECK(plan->cleanup == Cleanup::Remove);
  CHECK(plan->gate_timeout == std::chrono::seconds(120));
  CHECK_FALSE(plan->dry_run);
}

TEST_CASE("bad flags are refused with exit 2 before any cluster is touched") {
  CHECK(invalid_message(with_set({"cpuManagerPolicyy=static"}))
            .find("did you mean cpuManagerPolicy") != std::string::npos);
  CHECK(invalid_message(with_set({"featureGates.StorageVersionMigrator=true"}))
            .find("control-plane feature gate") != std::string::npos);
  CHECK(invalid_message(with_set({"maxPods=lots"})).find("maxPods") != std::string::npos);
  CHECK(invalid_message(ReconfigureOptions{}).find("nothing to change") != std::string::npos);

  auto no_wait = with_set({"maxPods=50"});
  no_wait.wait = false;
  CHECK(invalid_message(no_wait).find("--wait=false: reconfigure drives the rollout itself") !=
        std::string::npos);

  auto both = with_set({"maxPods=50"});
  both.file = "features.yaml";
  CHECK(invalid_message(both).find("exclusive") != std::string::npos);

  auto zero = with_set({"maxPods=50"});
  zero.max_unavailable = 0;
  CHECK(invalid_message(zero).find("--max-unavailable 0") != std::string::npos);

  auto timeout = with_set({"maxPods=50"});
  timeout.timeout = "soon";
  CHECK(invalid_message(timeout).find("--timeout \"soon\"") != std::string::npos);

  auto dry = with_set({"maxPods=50"});
  dry.dry_run = "server";
  CHECK(invalid_message(dry).find("--dry-run server") != std::string::npos);

  auto relative = with_set({"maxPods=50"});
  relative.kubelet_config = "kubelet.yaml";
  CHECK(invalid_message(relative).find("absolute path") != std::string::npos);

  auto two = with_set({"maxPods=50"});
  two.kubelet_config = "/a/config.yaml";
  two.kubelet_config_dir = "/a/conf.d";
  CHECK(invalid_message(two).find("exclusive") != std::string::npos);
}

TEST_CASE("explicit paths keep their {node} placeholder until a node's pod is built") {
  auto o = with_set({"maxPods=50"});
  o.kubelet_config = "/var/lib/fedtb/c2/{node}/kubelet-config.yaml";
  o.kubelet_root_dir = "/var/lib/fedtb/c2/{node}/kubelet";
  o.restart_command = " scripts/testbed restart-kubelet c2 {node} ";
  o.max_unavailable = 3;
  o.drain = true;
  o.cleanup = false;
  o.timeout = "90s";
  o.dry_run = "client";
  auto plan = make_plan(o, "");
  REQUIRE(plan);
  CHECK(plan->target.kubelet_config == "/var/lib/fedtb/c2/{node}/kubelet-config.yaml");
  CHECK(plan->target.restart_command == "scripts/testbed restart-kubelet c2 {node}");
  CHECK(for_node(plan->target.restart_command, "node2") ==
        "scripts/testbed restart-kubelet c2 node2");
  CHECK(plan->max_unavailable == 3);
  CHECK(plan->drain == DrainMode::On);
  CHECK(plan->cleanup == Cleanup::Keep);
  CHECK(plan->gate_timeout == std::chrono::seconds(90));
  CHECK(plan->dry_run);
}

TEST_CASE("-f reads a FeatureConfig's spec.kubelet, maps as field.KEY items") {
  const std::string yaml = R"(apiVersion: fed.kubectl-fed.io/v1alpha1
kind: FeatureConfig
metadata:
  name: cpu-pinning
spec:
  kubelet:
    cpuManagerPolicy: static
    reservedSystemCPUs: "0"
    maxPods: 50
    featureGates:
      CPUManagerPolicyAlphaOptions: true
)";
  ReconfigureOptions o;
  o.file = "features.yaml";
  auto plan = make_plan(o, yaml);
  REQUIRE(plan);
  CHECK(plan->set_items ==
        std::vector<std::string>{"cpuManagerPolicy=static",
                                 "featureGates.CPUManagerPolicyAlphaOptions=true", "maxPods=50",
                                 "reservedSystemCPUs=0"});

  CHECK(invalid_message(o, "kind: ConfigMap\n").find("expected kind FeatureConfig") !=
        std::string::npos);
  // Found by the manifests fuzz target: a document of the wrong shape or field types was a
  // json type_error (and a kind that is not UTF-8 one more, from quoting it).
  CHECK(invalid_message(o, "- a\n- b\n").find("document 1 is not a mapping") != std::string::npos);
  CHECK(invalid_message(o, "kind:\n").find("expected kind FeatureConfig") != std::string::npos);
  CHECK(invalid_message(o, "kind: 7\n").find("got 7") != std::string::npos);
  CHECK(invalid_message(o, "kind: \"\xc1\xc1\"\n").find("expected kind FeatureConfig") !=
        std::string::npos);
  CHECK(invalid_message(o, "kind: FeatureConfig\nmetadata: {name: [x]}\nspec: {maxPods: 5}\n")
            .find("metadata.name: expected a string") != std::string::npos);
  CHECK(invalid_message(o, "kind: FeatureConfig\nspec: {}\n").find("spec: nothing to change") !=
        std::string::npos);
  // A file's field is named as the file's, not as a --set flag the user did not give.
  const std::string typo =
      invalid_message(o, "kind: FeatureConfig\nspec:\n  kubelet:\n    cpuManagerPolicyy: static\n");
  CHECK(typo.find("features.yaml: field cpuManagerPolicyy: not a KubeletConfiguration field") == 0);
  CHECK(typo.find("--set") == std::string::npos);
  CHECK(invalid_message(o, "kind: FeatureConfig\nspec:\n  kubelet:\n    maxPods: [1]\n")
            .find("spec.kubelet.maxPods") != std::string::npos);
  CHECK(invalid_message(o, "a: [\n").find("not valid YAML") != std::string::npos);
}

TEST_CASE("podPreset=true asks for a cluster feature, alone or with kubelet fields") {
  auto only = make_plan(with_set({"podPreset=true"}), "");
  REQUIRE(only);
  CHECK(only->features == std::vector<std::string>{"podPreset"});
  CHECK(only->changes.changes.empty());
  CHECK(only->set_items.empty());
  CHECK(only->feature_timeout == std::chrono::seconds(120));

  auto both = make_plan(with_set({"cpuManagerPolicy=static", "podPreset=true"}), "");
  REQUIRE(both);
  CHECK(both->features == std::vector<std::string>{"podPreset"});
  CHECK(both->set_items == std::vector<std::string>{"cpuManagerPolicy=static"});

  auto off = make_plan(with_set({"podPreset=false", "maxPods=50"}), "");
  REQUIRE(off);
  CHECK(off->features.empty());
  CHECK(off->removed_features == std::vector<std::string>{"podPreset"});
  CHECK(off->set_items == std::vector<std::string>{"maxPods=50"});
  CHECK(invalid_message(with_set({"podPreset=yes"})).find("expected podPreset=true") !=
        std::string::npos);
  CHECK(invalid_message(with_set({"podPreset=true", "podPreset=false"})).find("twice") !=
        std::string::npos);
  CHECK(invalid_message(with_set({"podPreset=true", "podPreset=true"})).find("twice") !=
        std::string::npos);

  ReconfigureOptions o;
  o.file = "features.yaml";
  auto from_file = make_plan(o, "kind: FeatureConfig\nspec:\n  podPreset: true\n");
  REQUIRE(from_file);
  CHECK(from_file->features == std::vector<std::string>{"podPreset"});
  const std::string unknown =
      invalid_message(o, "kind: FeatureConfig\nspec:\n  networkPolicy: true\n");
  CHECK(unknown.find("spec.networkPolicy: unknown") != std::string::npos);
  CHECK(unknown.find("podPreset") != std::string::npos);
}

TEST_CASE("--cni-conflist: a checked CNI switch that runs alone; --rollback undoes it") {
  const std::string alt = R"({"cniVersion": "1.0.0", "name": "alt", "plugins": [
      {"type": "bridge", "bridge": "cni1", "ipam": {"type": "host-local",
        "dataDir": "/var/lib/x/{node}/ipam", "ranges": [[{"subnet": "10.250.0.0/24"}]]}}]})";
  ReconfigureOptions o;
  o.cni_conflist = "alt.conflist";
  o.cni_conf_dir = "/var/lib/x/{node}/net.d";
  auto plan = make_plan(o, "", alt);
  REQUIRE(plan);
  REQUIRE(plan->cni);
  CHECK(plan->cni->network == "alt");
  CHECK(plan->cni->subnets == std::vector<std::string>{"10.250.0.0/24"});
  CHECK(plan->cni->conf_dir == "/var/lib/x/{node}/net.d");
  CHECK_FALSE(plan->cni->rollback);
  CHECK(plan->changes.changes.empty());

  ReconfigureOptions back;
  back.rollback = true;
  auto undo = make_plan(back, "");
  REQUIRE(undo);
  CHECK(undo->cni->rollback);
  CHECK(undo->cni->conf_dir == "/etc/cni/net.d");

  CHECK(invalid_message(o, "", "{").find("alt.conflist: not a JSON object") != std::string::npos);
  ReconfigureOptions mixed = o;
  mixed.set = {"maxPods=50"};
  CHECK(invalid_message(mixed, "", alt).find("runs alone") != std::string::npos);
  ReconfigureOptions both = o;
  both.rollback = true;
  CHECK(invalid_message(both, "", alt).find("without --cni-conflist") != std::string::npos);
  ReconfigureOptions relative = o;
  relative.cni_conf_dir = "net.d";
  CHECK(invalid_message(relative, "", alt).find("--cni-conf-dir net.d") != std::string::npos);
  ReconfigureOptions dir_only = with_set({"maxPods=50"});
  dir_only.cni_conf_dir = "/etc/cni/net.d";
  CHECK(invalid_message(dir_only).find("--cni-conf-dir belongs to a CNI switch") !=
        std::string::npos);
}

TEST_CASE("a FeatureConfig's clusterSelector, maxUnavailable and drain count unless flags say") {
  ReconfigureOptions o;
  o.file = "features.yaml";
  const std::string text = R"Y(apiVersion: fed.kubectl-fed.io/v1alpha1
kind: FeatureConfig
metadata:
  name: eu-static-cpu
spec:
  clusterSelector: "region=eu,tier in (gold, silver)"
  maxUnavailable: 2
  drain: true
  kubelet:
    cpuManagerPolicy: static
  podPreset: true
)Y";
  auto plan = make_plan(o, text);
  REQUIRE(plan);
  CHECK(plan->max_unavailable == 2);
  CHECK(plan->drain == DrainMode::On);
  REQUIRE(plan->cluster_selector);
  CHECK(*plan->cluster_selector == "region=eu,tier in (gold,silver)");
  CHECK(plan->feature_config["metadata"]["name"] == "eu-static-cpu");
  CHECK(plan->features == std::vector<std::string>{"podPreset"});
  CHECK(plan->set_items == std::vector<std::string>{"cpuManagerPolicy=static"});

  ReconfigureOptions flags = o;
  flags.max_unavailable = 1;
  flags.max_unavailable_given = true;
  flags.clusters = "all";
  flags.clusters_given = true;
  auto overridden = make_plan(flags, text);
  REQUIRE(overridden);
  CHECK(overridden->max_unavailable == 1);
  CHECK(*overridden->cluster_selector == "");

  // Without a selector the --context clusters are the targets; without a name nothing is
  // recorded.
  auto plain = make_plan(o, "kind: FeatureConfig\nspec:\n  kubelet:\n    maxPods: 50\n");
  REQUIRE(plain);
  CHECK_FALSE(plain->cluster_selector);
  CHECK(plain->feature_config.is_null());

  CHECK(invalid_message(
            o, "kind: FeatureConfig\nspec:\n  clusterSelector: 'a in ('\n  podPreset: true\n")
            .find("spec.clusterSelector") != std::string::npos);
  CHECK(invalid_message(o, "kind: FeatureConfig\nspec:\n  maxUnavailable: 0\n  podPreset: true\n")
            .find("spec.maxUnavailable 0") != std::string::npos);
  CHECK(invalid_message(o, "kind: FeatureConfig\nspec:\n  drain: yes please\n  podPreset: true\n")
            .find("spec.drain: expected true or false") != std::string::npos);
  ReconfigureOptions bad_flag = with_set({"maxPods=50"});
  bad_flag.clusters = "region in eu";
  bad_flag.clusters_given = true;
  CHECK(invalid_message(bad_flag).find("--clusters \"region in eu\"") != std::string::npos);
}

TEST_CASE("a FeatureConfig's spec.cni is a CNI switch that runs alone") {
  ReconfigureOptions o;
  o.file = "features.yaml";
  const std::string cni = R"(kind: FeatureConfig
spec:
  cni:
    confDir: /var/lib/x/{node}/net.d
    conflist:
      cniVersion: 1.0.0
      name: alt
      plugins:
        - type: bridge
          bridge: cni1
          ipam: {type: host-local, ranges: [[{subnet: 10.250.0.0/24}]]}
)";
  auto plan = make_plan(o, cni);
  REQUIRE(plan);
  REQUIRE(plan->cni);
  CHECK(plan->cni->network == "alt");
  CHECK(plan->cni->subnets == std::vector<std::string>{"10.250.0.0/24"});
  CHECK(plan->cni->conf_dir == "/var/lib/x/{node}/net.d");
  CHECK(invalid_message(o, cni + "  podPreset: true\n").find("runs alone") != std::string::npos);
  CHECK(invalid_message(o, "kind: FeatureConfig\nspec:\n  cni: {confDir: /x}\n")
            .find("spec.cni.conflist: missing") != std::string::npos);
}

TEST_CASE("nodes roll sorted by name in batches of --max-unavailable") {
  using Batches = std::vector<std::vector<std::string>>;
  CHECK(plan_batches({"n3", "n1", "n2"}, 1) == Batches{{"n1"}, {"n2"}, {"n3"}});
  CHECK(plan_batches({"n3", "n1", "n2", "n5", "n4"}, 2) ==
        Batches{{"n1", "n2"}, {"n3", "n4"}, {"n5"}});
  CHECK(plan_batches({"n2", "n1"}, 5) == Batches{{"n1", "n2"}});
  CHECK(plan_batches({}, 1).empty());
  CHECK(plan_batches({"a", "b"}, 0) == Batches{{"a"}, {"b"}});  // never a batch of none
}

TEST_CASE("--context is repeatable: every one is kept in order, the last is the context") {
  auto s = scan_global_flags(
      {"reconfigure", "--context", "c2", "--set", "maxPods=50", "--context=c3", "--context", "c1"});
  REQUIRE(s);
  CHECK(s->global.contexts == std::vector<std::string>{"c2", "c3", "c1"});
  CHECK(s->global.context == "c1");
  CHECK(s->rest == std::vector<std::string>{"reconfigure", "--set", "maxPods=50"});
  auto none = scan_global_flags({"reconfigure", "status"});
  REQUIRE(none);
  CHECK(none->global.contexts.empty());
}
