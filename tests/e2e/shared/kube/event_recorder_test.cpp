// EventRecorder against the testbed's real kube-apiserver: Events land where `kubectl get
// events` finds them, a repeated occurrence bumps the count of one Event, a new message starts
// another.

#include "shared/kube/event_recorder.hpp"

#include "tests/e2e/shared/kube/e2e_support.hpp"

namespace {

using namespace fed::kube;
using namespace fed::kube::e2e;

const GroupVersionResource kEvents{"", "v1", "events"};

json events_about(DynamicClient& c, const std::string& ns, const std::string& name) {
  ListOptions o;
  o.field_selector = "involvedObject.name=" + name;
  return must(c.list(ResourceRef{kEvents, ns, "", ""}, o), "list events")["items"];
}

}  // namespace

TEST_CASE("events: a repeat bumps the count of one Event; a new message makes another") {
  auto c = client();
  TestNamespace ns(*c, "events");
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "subject"}}},
             {"data", {{"k", "v"}}}};
  const json made = must(c->create(ns.configmaps(), cm), "create configmap");
  const InvolvedObject subject{"v1", "ConfigMap", ns.name(), "subject",
                               made["metadata"]["uid"].get<std::string>()};

  EventRecorder recorder(c, EventSource{"fed-e2e", "node9"});
  recorder.record(subject, EventType::Warning, "DatapathFailed", "route to 10.1.0.0/16: EPERM");
  recorder.record(subject, EventType::Warning, "DatapathFailed", "route to 10.1.0.0/16: EPERM");
  recorder.record(subject, EventType::Warning, "DatapathFailed", "route to 10.1.0.0/16: EPERM");

  json items = events_about(*c, ns.name(), "subject");
  REQUIRE(items.size() == 1);
  const json& e = items[0];
  CHECK(e["type"] == "Warning");
  CHECK(e["reason"] == "DatapathFailed");
  CHECK(e["message"] == "route to 10.1.0.0/16: EPERM");
  CHECK(e["count"] == 3);
  CHECK(e["involvedObject"]["uid"] == subject.uid);
  CHECK(e["source"]["component"] == "fed-e2e");
  CHECK(e["source"]["host"] == "node9");

  recorder.record(subject, EventType::Normal, "DatapathConverged", "converged again");
  items = events_about(*c, ns.name(), "subject");
  CHECK(items.size() == 2);
  ns.pass();
}
