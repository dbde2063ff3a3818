// The REST client against a real kube-apiserver (testbed cluster c1): discovery, CRUD, patches,
// server-side apply conflicts, a CRD's status subresource, pagination, and authentication.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "shared/kube/dynamic_client.hpp"
#include "shared/util/base64.hpp"
#include "tests/e2e/shared/kube/e2e_support.hpp"

namespace fed::kube {

using namespace e2e;

TEST_CASE("version, discovery and raw paths") {
  auto c = client();
  const auto version = json::parse(must(c->get_raw("/version"), "GET /version"));
  CHECK(version["gitVersion"].get<std::string>().rfind("v1.33", 0) == 0);
  auto deploy = must(c->discovery().find("deploy"), "find deploy");
  CHECK(deploy.gvr == GroupVersionResource{"apps", "v1", "deployments"});
  CHECK(deploy.has_subresource("status"));
  CHECK(deploy.has_subresource("scale"));
  auto node = must(c->discovery().resource_for("v1", "Node"), "Node");
  CHECK_FALSE(node.namespaced);
  auto missing = c->discovery().resource_for("v1", "NoSuchKind");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == ErrorCode::NotFound);
}

TEST_CASE("CRUD on ConfigMaps: conflicts, patches, preconditions, not found") {
  auto c = client();
  TestNamespace ns(*c, "crud");
  const auto cms = ns.configmaps();

  auto created = must(c->create(cms, configmap("a", {{"k", "v1"}})), "create");
  CHECK(created["metadata"]["namespace"] == ns.name());
  auto dup = c->create(cms, configmap("a"));
  REQUIRE_FALSE(dup);
  CHECK(dup.error().is_already_exists());
  CHECK(dup.error().code() == ErrorCode::Conflict);

  auto got = must(c->get(cms.named("a")), "get");
  got["data"]["k"] = "v2";
  auto updated = must(c->update(cms.named("a"), got), "update");
  CHECK(updated["data"]["k"] == "v2");
  // The same (now stale) resourceVersion again: 409 Conflict.
  got["data"]["k"] = "v3";
  auto stale = c->update(cms.named("a"), got);
  REQUIRE_FALSE(stale);
  CHECK(stale.error().http_status() == 409);
  CHECK(stale.error().reason() == "Conflict");

  must(c->patch(cms.named("a"), PatchType::Merge, R"({"data":{"m":"1"}})"), "merge patch");
  must(c->patch(cms.named("a"), PatchType::Json, R"([{"op":"add","path":"/data/j","value":"2"}])"),
       "json patch");
  auto sm = must(c->patch(cms.named("a"), PatchType::StrategicMerge, R"({"data":{"s":"3"}})"),
                 "strategic merge patch");
  CHECK(sm["data"] == json{{"k", "v2"}, {"m", "1"}, {"j", "2"}, {"s", "3"}});
  auto bad_patch = c->patch(cms.named("a"), PatchType::Json,
                            R"([{"op":"test","path":"/data/k","value":"nope"}])");
  REQUIRE_FALSE(bad_patch);
  CHECK(bad_patch.error().code() == ErrorCode::Invalid);

  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "00000000-0000-0000-0000-000000000000";
  auto precondition = c->remove(cms.named("a"), wrong_uid);
  REQUIRE_FALSE(precondition);
  CHECK(precondition.error().code() == ErrorCode::Conflict);
  DeleteOptions right;
  right.precondition_uid = sm["metadata"]["uid"].get<std::string>();
  right.propagation = Propagation::Foreground;
  must(c->remove(cms.named("a"), right), "delete");
  CHECK(eventually([&] {
    auto r = c->get(cms.named("a"));
    return !r && r.error().is_not_found();
  }));
  auto gone = c->get(cms.named("a"));
  REQUIRE_FALSE(gone);
  CHECK(gone.error().code() == ErrorCode::NotFound);
  CHECK(gone.error().to_error().message().find("\"a\" not found") != std::string::npos);

  // Object helpers derive the path through discovery.
  json obj = configmap("b");
  obj["metadata"]["namespace"] = ns.name();
  must(c->create_object(obj), "create_object");
  CHECK(must(c->get_object(obj), "get_object")["metadata"]["name"] == "b");
  must(c->remove_object(obj), "remove_object");
  ns.pass();
}

TEST_CASE("server-side apply: create, conflict naming the other manager, force") {
  auto c = client();
  TestNamespace ns(*c, "ssa");
  const auto ref = ns.configmaps().named("applied");
  auto first = must(c->apply(ref, configmap("applied", {{"key", "a"}}), ApplyOptions{"e2e-a"}),
                    "apply as e2e-a");
  CHECK(first["data"]["key"] == "a");
  auto conflict = c->apply(ref, configmap("applied", {{"key", "b"}}), ApplyOptions{"e2e-b"});
  REQUIRE_FALSE(conflict);
  CHECK(conflict.error().http_status() == 409);
  CHECK(conflict.error().is_apply_conflict());
  CHECK(conflict.error().conflicting_managers() == std::vector<std::string>{"e2e-a"});
  CHECK(conflict.error().to_error().message().find("e2e-a") != std::string::npos);
  auto forced =
      must(c->apply(ref, configmap("applied", {{"key", "b"}}), ApplyOptions{"e2e-b", true}),
           "apply with force");
  CHECK(forced["data"]["key"] == "b");
  std::set<std::string> managers;
  for (const auto& mf : forced["metadata"]["managedFields"]) {
    managers.insert(mf["manager"].get<std::string>());
  }
  CHECK(managers.count("e2e-b") == 1);
  ns.pass();
}

TEST_CASE("a CRD with a status subresource: discovery refresh, status get/update/patch") {
  auto c = client();
  TestNamespace ns(*c, "crd");
  const std::string group = "e2e" + std::to_string(::getpid()) + ".fed.test";
  const std::string crd_name = "widgets." + group;
  json crd =
      json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "spec":{"scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget"},
      "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
        "schema":{"openAPIV3Schema":{"type":"object","properties":{
          "spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
          "status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}})");
  crd["metadata"]["name"] = crd_name;
  crd["spec"]["group"] = group;
  const ResourceRef crds{{"apiextensions.k8s.io", "v1", "customresourcedefinitions"}, "", "", ""};
  must(c->create(crds, crd), "create CRD");
  CHECK(eventually([&] {
    auto r = c->get(crds.named(crd_name));
    if (!r) return false;
    for (const auto& cond : (*r)["status"].value("conditions", json::array())) {
      if (cond["type"] == "Established" && cond["status"] == "True") return true;
    }
    return false;
  }));
  // Served now, unknown to the (possibly cached) discovery until it refreshes on the miss.
  ApiResource widgets;
  CHECK(eventually([&] {
    auto r = c->discovery().resource_for(group + "/v1", "Widget");
    if (r) widgets = *r;
    return r.has_value();
  }));
  CHECK(widgets.has_subresource("status"));

  json w{{"apiVersion", group + "/v1"},
         {"kind", "Widget"},
         {"metadata", {{"name", "w1"}, {"namespace", ns.name()}}},
         {"spec", {{"size", 1}}}};
  auto created = must(c->create_object(w), "create widget");
  const auto ref = widgets.ref(ns.name(), "w1");
  created["status"] = {{"phase", "Ready"}};
  auto st = must(c->update_status(ref, created), "update status");
  CHECK(st["status"]["phase"] == "Ready");
  must(c->patch_status(ref, PatchType::Merge, R"({"status":{"observed":3}})"), "patch status");
  auto got = must(c->get_status(ref), "get status");
  CHECK(got["status"] == json{{"phase", "Ready"}, {"observed", 3}});
  // The main resource ignores status changes.
  got["status"]["phase"] = "Ignored";
  auto main = must(c->update(ref, got), "update main resource");
  CHECK(main["status"]["phase"] == "Ready");

  must(c->remove(crds.named(crd_name)), "delete CRD");
  ns.pass();
}

TEST_CASE("a paginated list of 2000 ConfigMaps") {
  auto c = client();
  TestNamespace ns(*c, "page");
  constexpr int kCount = 2000;
  std::atomic<int> next{0};
  std::atomic<int> failures{0};
  std::mutex err_mu;
  std::string first_error;
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&] {
      // Stop at the first failure: one clear error beats 2000 slow ones.
      for (int i = next++; i < kCount && failures == 0; i = next++) {
        json cm = configmap("cm-" + std::to_string(i), {{"i", std::to_string(i)}});
        cm["metadata"]["labels"]["e2e"] = "page";
        auto r = c->create(ns.configmaps(), cm);
        if (!r) {
          std::lock_guard lock(err_mu);
          if (failures++ == 0) first_error = r.error().to_error().message();
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  INFO("first failure: " << first_error);
  REQUIRE(failures == 0);
  ListOptions page;
  page.limit = 500;
  page.label_selector = "e2e=page";
  auto first = must(c->list(ns.configmaps(), page), "first page");
  CHECK(first["items"].size() == 500);
  CHECK_FALSE(first["metadata"].value("continue", "").empty());
  auto all = must(c->list_all(ns.configmaps(), page), "list_all");
  CHECK(all["items"].size() == kCount);
  std::set<std::string> names;
  for (const auto& item : all["items"]) names.insert(item["metadata"]["name"].get<std::string>());
  CHECK(names.size() == kCount);
  CHECK_FALSE(all["metadata"].value("resourceVersion", "").empty());
  ns.pass();
}

TEST_CASE("authentication by token and by exec plugin; RBAC errors are Permission") {
  auto c = client();
  TestNamespace ns(*c, "auth");
  const ResourceRef sas{{"", "v1", "serviceaccounts"}, ns.name(), "", ""};
  must(c->create(sas, json{{"apiVersion", "v1"},
                           {"kind", "ServiceAccount"},
                           {"metadata", {{"name", "reader"}}}}),
       "create service account");
  const ResourceRef rbs{{"rbac.authorization.k8s.io", "v1", "rolebindings"}, ns.name(), "", ""};
  must(c->create(rbs, json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1",
         "kind":"RoleBinding","metadata":{"name":"reader-view"},
         "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
         "subjects":[{"kind":"ServiceAccount","name":"reader","namespace":")" +
                                  ns.name() + R"("}]})")),
       "create role binding");
  must(c->create(ns.configmaps(), configmap("visible")), "create configmap");
  // A TokenRequest: POST to the serviceaccounts/token subresource.
  auto token_resp = must(c->create(sas.named("reader").sub("token"),
                                   json::parse(R"({"apiVersion":"authentication.k8s.io/v1",
                                     "kind":"TokenRequest","spec":{"expirationSeconds":600}})")),
                         "token request");
  const std::string token = token_resp["status"]["token"].get<std::string>();
  REQUIRE_FALSE(token.empty());

  const auto admin = admin_config();
  const auto dir =
      std::filesystem::temp_directory_path() / ("fed-e2e-auth-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write_kubeconfig = [&](const std::string& file, const std::string& user_yaml) {
    std::ofstream out(dir / file);
    out << "apiVersion: v1\nkind: Config\nclusters:\n- name: c1\n  cluster:\n    server: "
        << admin.server << "\n    certificate-authority-data: " << util::base64_encode(admin.ca_pem)
        << "\nusers:\n- name: u\n  user:\n"
        << user_yaml
        << "contexts:\n- name: c\n  context:\n    cluster: c1\n    user: u\n    namespace: "
        << ns.name() << "\ncurrent-context: c\n";
    return (dir / file).string();
  };

  auto with_token =
      client(config_from(write_kubeconfig("token.yaml", "    token: " + token + "\n")));
  auto list = must(with_token->list(ns.configmaps()), "list with token");
  CHECK(list["items"].size() >= 1);
  auto denied = with_token->create(ns.configmaps(), configmap("nope"));
  REQUIRE_FALSE(denied);
  CHECK(denied.error().http_status() == 403);
  CHECK(denied.error().code() == ErrorCode::Permission);

  {
    std::ofstream script(dir / "plugin.sh");
    script << "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
              "\"kind\":\"ExecCredential\",\"status\":{\"token\":\""
           << token << "\"}}'\n";
  }
  std::filesystem::permissions(dir / "plugin.sh", std::filesystem::perms::owner_all);
  auto with_exec = client(config_from(write_kubeconfig(
      "exec.yaml", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " +
                       (dir / "plugin.sh").string() + "\n      interactiveMode: Never\n")));
  CHECK(must(with_exec->get(ns.configmaps().named("visible")),
             "get with exec plugin")["metadata"]["name"] == "visible");

  auto bad = client(config_from(write_kubeconfig("bad.yaml", "    token: not-a-valid-token\n")));
  auto unauthorized = bad->list(ns.configmaps());
  REQUIRE_FALSE(unauthorized);
  CHECK(unauthorized.error().http_status() == 401);
  CHECK(unauthorized.error().code() == ErrorCode::Permission);
  std::filesystem::remove_all(dir);
  ns.pass();
}

}  // namespace fed::kube
