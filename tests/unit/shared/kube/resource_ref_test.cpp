#include "shared/kube/resource_ref.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "shared/kube/request_options.hpp"

namespace fed::kube {

TEST_CASE("apiVersion parsing and discovery paths") {
  auto core = GroupVersion::parse("v1");
  REQUIRE(core);
  CHECK(core->group.empty());
  CHECK(core->path() == "/api/v1");
  auto apps = GroupVersion::parse("apps/v1");
  REQUIRE(apps);
  CHECK(apps->group == "apps");
  CHECK(apps->api_version() == "apps/v1");
  CHECK(apps->path() == "/apis/apps/v1");
  CHECK_FALSE(GroupVersion::parse(""));
  CHECK_FALSE(GroupVersion::parse("/v1"));
  CHECK_FALSE(GroupVersion::parse("a/b/c"));
}

TEST_CASE("REST paths of objects, collections and subresources") {
  const GroupVersionResource pods{"", "v1", "pods"};
  const GroupVersionResource deploys{"apps", "v1", "deployments"};
  const GroupVersionResource nodes{"", "v1", "nodes"};
  CHECK(path_of({pods, "default", "", ""}) == "/api/v1/namespaces/default/pods");
  CHECK(path_of({pods, "", "", ""}) == "/api/v1/pods");
  CHECK(path_of({pods, "kube-system", "p1", "status"}) ==
        "/api/v1/namespaces/kube-system/pods/p1/status");
  CHECK(path_of({deploys, "ns", "web", "scale"}) ==
        "/apis/apps/v1/namespaces/ns/deployments/web/scale");
  CHECK(path_of({nodes, "", "n1", ""}) == "/api/v1/nodes/n1");
  CHECK(path_of({pods, "a b", "x/y", ""}) == "/api/v1/namespaces/a%20b/pods/x%2Fy");
  ResourceRef r{deploys, "ns", "web", "status"};
  CHECK(r.collection().name.empty());
  CHECK(r.collection().subresource.empty());
  CHECK(r.to_string() == "deployments.v1.apps ns/web (status)");
}

TEST_CASE("query strings are percent-encoded") {
  Query q;
  q.add("labelSelector", "app in (a,b),!x").add_if("empty", "").add("k", "");
  CHECK(q.str() == "labelSelector=app%20in%20%28a%2Cb%29%2C%21x&k=");
  CHECK(q.suffix() == "?" + q.str());
  CHECK(Query().suffix().empty());
  CHECK(url_encode("a-b_c.d~e") == "a-b_c.d~e");
}

TEST_CASE("list and watch options become query parameters") {
  Query q;
  ListOptions lo;
  lo.label_selector = "a=b";
  lo.limit = 50;
  lo.continue_token = "tok";
  lo.timeout = std::chrono::seconds(10);
  add_to_query(q, lo);
  CHECK(q.str() == "labelSelector=a%3Db&limit=50&continue=tok&timeoutSeconds=10");

  Query w;
  WatchOptions wo;
  wo.resource_version = "42";
  wo.timeout = std::chrono::seconds(300);
  add_to_query(w, wo);
  CHECK(w.str() == "watch=true&resourceVersion=42&allowWatchBookmarks=true&timeoutSeconds=300");
}

TEST_CASE("write, apply and delete options") {
  Query q;
  add_to_query(q, WriteOptions{"fed", true, "Strict"});
  CHECK(q.str() == "fieldManager=fed&dryRun=All&fieldValidation=Strict");
  Query a;
  add_to_query(a, ApplyOptions{"fed", true, false});
  CHECK(a.str() == "fieldManager=fed&force=true");

  CHECK(delete_options_body(DeleteOptions{}).is_null());
  DeleteOptions d;
  d.propagation = Propagation::Foreground;
  d.grace_period_seconds = 0;
  d.precondition_uid = "u-1";
  d.precondition_resource_version = "7";
  const auto body = delete_options_body(d);
  CHECK(body["kind"] == "DeleteOptions");
  CHECK(body["propagationPolicy"] == "Foreground");
  CHECK(body["gracePeriodSeconds"] == 0);
  CHECK(body["preconditions"]["uid"] == "u-1");
  CHECK(body["preconditions"]["resourceVersion"] == "7");
  CHECK(content_type_of(PatchType::Apply) == "application/apply-patch+yaml");
  CHECK(content_type_of(PatchType::StrategicMerge) == "application/strategic-merge-patch+json");
}

}  // namespace fed::kube
