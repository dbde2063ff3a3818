// DynamicClient and Discovery against a loopback server that answers like an API server.
#include "shared/kube/dynamic_client.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "tests/unit/shared/kube/loopback_client.hpp"
#include "tests/unit/shared/kube/loopback_server.hpp"

namespace fed::kube {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::loopback_client;
using testing::LoopbackServer;
using testing::TestRequest;
using testing::TestResponse;

namespace {

json resource(const std::string& name, const std::string& kind, bool namespaced,
              std::vector<std::string> short_names = {}) {
  json r{{"name", name},
         {"kind", kind},
         {"namespaced", namespaced},
         {"verbs", {"get", "list", "watch", "create", "update", "patch", "delete"}}};
  if (!short_names.empty()) r["shortNames"] = short_names;
  if (name.find('/') == std::string::npos) {
    std::string singular = kind;
    for (auto& c : singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r["singularName"] = singular;
  }
  return r;
}

// Discovery documents of a small cluster; a CRD (widgets.example.com) appears after
// `crd_after` fetches of its group-version.
struct FakeDiscovery {
  std::atomic<int> crd_fetches{0};
  int crd_after = 1;

  std::optional<TestResponse> answer(const TestRequest& req) {
    if (req.path == "/api")
      return TestResponse::json(200, R"({"kind":"APIVersions","versions":["v1"]})");
    if (req.path == "/apis") {
      json groups = json::array();
      for (const char* g : {"apps", "example.com"}) {
        json gv{{"groupVersion", std::string(g) + "/v1"}, {"version", "v1"}};
        groups.push_back({{"name", g}, {"versions", {gv}}, {"preferredVersion", gv}});
      }
      return TestResponse::json(200, json{{"kind", "APIGroupList"}, {"groups", groups}}.dump());
    }
    if (req.path == "/api/v1") {
      json list{{"kind", "APIResourceList"},
                {"groupVersion", "v1"},
                {"resources",
                 {resource("configmaps", "ConfigMap", true, {"cm"}),
                  resource("namespaces", "Namespace", false, {"ns"}),
                  resource("nodes", "Node", false, {"no"}), resource("nodes/proxy", "Node", false),
                  resource("pods", "Pod", true, {"po"}), resource("pods/status", "Pod", true)}}};
      return TestResponse::json(200, list.dump());
    }
    if (req.path == "/apis/apps/v1") {
      json list{{"kind", "APIResourceList"},
                {"groupVersion", "apps/v1"},
                {"resources",
                 {resource("deployments", "Deployment", true, {"deploy"}),
                  resource("deployments/status", "Deployment", true),
                  resource("deployments/scale", "Scale", true)}}};
      return TestResponse::json(200, list.dump());
    }
    if (req.path == "/apis/example.com/v1") {
      json res = json::array();
      if (++crd_fetches > crd_after) res.push_back(resource("widgets", "Widget", true, {"wd"}));
      return TestResponse::json(
          200,
          json{{"kind", "APIResourceList"}, {"groupVersion", "example.com/v1"}, {"resources", res}}
              .dump());
    }
    if (req.path.rfind("/apis/", 0) == 0 &&
        std::count(req.path.begin(), req.path.end(), '/') == 3) {
      return TestResponse::json(
          404,
          R"({"kind":"Status","code":404,"reason":"NotFound","message":"the server could not find the requested resource"})");
    }
    return std::nullopt;
  }
};

json configmap(const std::string& ns, const std::string& name) {
  json cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
  if (!ns.empty()) cm["metadata"]["namespace"] = ns;
  return cm;
}

}  // namespace

TEST_CASE("discovery maps kinds and kubectl-style names to resources, scope and subresources") {
  FakeDiscovery disc;
  LoopbackServer server([&](const TestRequest& req) {
    if (auto r = disc.answer(req)) return *r;
    return TestResponse::json(404, "{}");
  });
  auto client = loopback_client(server, "fake", "team-a");
  Discovery& d = client->discovery();

  auto cm = d.resource_for("v1", "ConfigMap");
  REQUIRE(cm);
  CHECK(cm->gvr == GroupVersionResource{"", "v1", "configmaps"});
  CHECK(cm->namespaced);
  auto node = d.resource_for("v1", "Node");
  REQUIRE(node);
  CHECK_FALSE(node->namespaced);
  CHECK(node->has_subresource("proxy"));
  auto deploy = d.resource_for(GroupVersionKind{"apps", "v1", "Deployment"});
  REQUIRE(deploy);
  CHECK(deploy->subresources == std::vector<std::string>{"status", "scale"});
  CHECK(deploy->supports("patch"));

  for (const char* name : {"deploy", "deployments", "deployment", "Deployment", "deployments.apps",
                           "deployments.v1.apps"}) {
    CAPTURE(name);
    auto r = d.find(name);
    REQUIRE(r);
    CHECK(r->gvr.resource == "deployments");
  }
  auto po = d.find("po");
  REQUIRE(po);
  CHECK(po->gvr.resource == "pods");

  // Cached: asking again costs no request.
  const int before = server.request_count();
  REQUIRE(d.resource_for("v1", "ConfigMap"));
  CHECK(server.request_count() == before);

  auto unknown = d.find("gizmos");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code() == ErrorCode::NotFound);
  auto bad_gv = d.resource_for("nope.io/v1", "Thing");
  REQUIRE_FALSE(bad_gv);
  CHECK(bad_gv.error().code() == ErrorCode::NotFound);
  CHECK(bad_gv.error().message().find("nope.io/v1") != std::string::npos);
}

TEST_CASE("a kind missing from the cache is looked up again (a CRD installed meanwhile)") {
  FakeDiscovery disc;
  LoopbackServer server([&](const TestRequest& req) {
    if (auto r = disc.answer(req)) return *r;
    return TestResponse::json(404, "{}");
  });
  auto client = loopback_client(server, "fake", "team-a");
  auto w = client->discovery().resource_for("example.com/v1", "Widget");
  REQUIRE(w);
  CHECK(w->gvr.resource == "widgets");
  CHECK(disc.crd_fetches == 2);
  auto missing = client->discovery().resource_for("example.com/v1", "Gadget");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().find("CRD") != std::string::npos);
}

TEST_CASE("verbs build the right requests from ResourceRefs and from objects") {
  FakeDiscovery disc;
  LoopbackServer server([&](const TestRequest& req) {
    if (auto r = disc.answer(req)) return *r;
    json echo{{"method", req.method}, {"path", req.path}};
    return TestResponse::json(req.method == "POST" ? 201 : 200, echo.dump());
  });
  auto client = loopback_client(server, "fake", "team-a");
  const ResourceRef cms{{"", "v1", "configmaps"}, "default", "", ""};

  REQUIRE(client->get(cms.named("x")));
  REQUIRE(client->create(cms, configmap("", "x"), WriteOptions{"fed", false, ""}));
  REQUIRE(client->update(cms.named("x"), configmap("default", "x")));
  REQUIRE(client->patch(cms.named("x"), PatchType::Merge, R"({"data":{"a":"b"}})"));
  REQUIRE(client->patch(cms.named("x"), PatchType::Json,
                        R"([{"op":"add","path":"/data/a","value":"b"}])"));
  REQUIRE(client->patch(cms.named("x"), PatchType::StrategicMerge, R"({"data":{}})"));
  REQUIRE(
      client->apply(cms.named("x"), configmap("", "x"), ApplyOptions{"fed-apply", true, false}));
  DeleteOptions del;
  del.propagation = Propagation::Background;
  del.precondition_resource_version = "5";
  REQUIRE(client->remove(cms.named("x"), del));
  REQUIRE(client->get_status({{"apps", "v1", "deployments"}, "ns", "web", ""}));
  REQUIRE(client->get_raw("/api/v1/nodes/n1/proxy/configz"));

  const auto reqs = server.requests();
  auto find = [&](const std::string& method, const std::string& ctype) -> const TestRequest& {
    for (const auto& r : reqs) {
      if (r.method == method && (ctype.empty() || r.header("content-type") == ctype)) return r;
    }
    FAIL("no " << method << " " << ctype);
    return reqs.front();
  };
  CHECK(find("GET", "").path == "/api/v1/namespaces/default/configmaps/x");
  const auto& post = find("POST", "application/json");
  CHECK(post.path == "/api/v1/namespaces/default/configmaps");
  CHECK(post.param("fieldManager") == "fed");
  CHECK(json::parse(post.body)["metadata"]["namespace"] == "default");  // filled from the ref
  CHECK(find("PUT", "application/json").path == "/api/v1/namespaces/default/configmaps/x");
  CHECK(find("PATCH", "application/merge-patch+json").body == R"({"data":{"a":"b"}})");
  find("PATCH", "application/json-patch+json");
  find("PATCH", "application/strategic-merge-patch+json");
  const auto& apply = find("PATCH", "application/apply-patch+yaml");
  CHECK(apply.param("fieldManager") == "fed-apply");
  CHECK(apply.param("force") == "true");
  const auto& d = find("DELETE", "");
  CHECK(json::parse(d.body)["propagationPolicy"] == "Background");
  CHECK(json::parse(d.body)["preconditions"]["resourceVersion"] == "5");
  CHECK(reqs[reqs.size() - 2].path == "/apis/apps/v1/namespaces/ns/deployments/web/status");
  CHECK(reqs.back().path == "/api/v1/nodes/n1/proxy/configz");

  // Object helpers: the path comes from apiVersion/kind/metadata through discovery.
  auto ref = client->ref_for(configmap("", "y"));
  REQUIRE(ref);
  CHECK(path_of(*ref) == "/api/v1/namespaces/team-a/configmaps/y");  // the context's namespace
  json ns_obj{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "prod"}}}};
  auto nsref = client->ref_for(ns_obj);
  REQUIRE(nsref);
  CHECK(path_of(*nsref) == "/api/v1/namespaces/prod");  // cluster-scoped
  REQUIRE(client->apply_object(configmap("other", "z"), ApplyOptions{"fed", false, false}));
  CHECK(server.requests().back().path == "/api/v1/namespaces/other/configmaps/z");
  // POST to a named object's subresource (a TokenRequest) keeps the name and subresource.
  REQUIRE(
      client->create({{"", "v1", "serviceaccounts"}, "default", "sa", "token"},
                     json{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}}));
  CHECK(server.requests().back().method == "POST");
  CHECK(server.requests().back().path == "/api/v1/namespaces/default/serviceaccounts/sa/token");
  auto no_kind = client->ref_for(json{{"metadata", {{"name", "q"}}}});
  REQUIRE_FALSE(no_kind);
  CHECK(no_kind.error().code() == ErrorCode::Invalid);
  auto no_manager = client->apply(cms.named("x"), configmap("", "x"), ApplyOptions{});
  REQUIRE_FALSE(no_manager);
  CHECK(no_manager.error().code() == ErrorCode::Invalid);
}

TEST_CASE("update conflicts and apply conflicts surface as typed errors") {
  LoopbackServer server([](const TestRequest& req) {
    if (req.method == "PUT") {
      return TestResponse::json(409, R"({"kind":"Status","code":409,"reason":"Conflict",
        "message":"Operation cannot be fulfilled on configmaps \"x\": the object has been modified"})");
    }
    return TestResponse::json(409, R"({"kind":"Status","apiVersion":"v1","status":"Failure",
      "message":"Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using v1: .data.k",
      "reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict",
      "message":"conflict with \"kubectl-client-side-apply\" using v1","field":".data.k"}]},"code":409})");
  });
  auto client = loopback_client(server, "fake", "team-a");
  const ResourceRef x{{"", "v1", "configmaps"}, "default", "x", ""};
  auto u = client->update(x, configmap("default", "x"));
  REQUIRE_FALSE(u);
  CHECK(u.error().code() == ErrorCode::Conflict);
  CHECK_FALSE(u.error().is_apply_conflict());
  auto a = client->apply(x, configmap("default", "x"), ApplyOptions{"fed", false, false});
  REQUIRE_FALSE(a);
  CHECK(a.error().is_apply_conflict());
  CHECK(a.error().conflicting_managers() == std::vector<std::string>{"kubectl-client-side-apply"});
  Result<json> flat = a;
  CHECK(flat.error().message().find("kubectl-client-side-apply") != std::string::npos);
  CHECK(server.request_count() == 2);  // conflicts are not retried
}

TEST_CASE("list_all follows continue tokens and restarts once when the token expires") {
  std::atomic<int> expire{1};
  LoopbackServer server([&](const TestRequest& req) {
    const std::string cont = req.param("continue");
    const int page = cont.empty() ? 0 : std::stoi(cont);
    if (page == 2 && expire-- > 0) {
      return TestResponse::json(410, R"({"kind":"Status","code":410,"reason":"Expired",
        "message":"The provided continue parameter is too old"})");
    }
    json items = json::array();
    const int limit = std::stoi(req.param("limit"));
    for (int i = 0; i < limit && page * limit + i < 7; ++i) {
      items.push_back(configmap("default", "cm-" + std::to_string(page * limit + i)));
    }
    json list{{"kind", "ConfigMapList"},
              {"apiVersion", "v1"},
              {"metadata", {{"resourceVersion", "100"}}},
              {"items", items}};
    if ((page + 1) * limit < 7) list["metadata"]["continue"] = std::to_string(page + 1);
    return TestResponse::json(200, list.dump());
  });
  auto client = loopback_client(server, "fake", "team-a");
  ListOptions lo;
  lo.limit = 3;
  lo.label_selector = "app=web";
  auto all = client->list_all(ResourceRef{{"", "v1", "configmaps"}, "default", "", ""}, lo);
  REQUIRE(all);
  CHECK((*all)["items"].size() == 7);
  CHECK((*all)["items"][6]["metadata"]["name"] == "cm-6");
  CHECK((*all)["metadata"]["resourceVersion"] == "100");
  CHECK_FALSE((*all)["metadata"].contains("continue"));
  // pages 0,1, expired 2, then 0,1,2 again
  CHECK(server.request_count() == 6);
  CHECK(server.requests().back().param("labelSelector") == "app=web");
}

}  // namespace fed::kube
