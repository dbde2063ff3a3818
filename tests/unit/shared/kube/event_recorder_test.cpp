#include "shared/kube/event_recorder.hpp"

#include <doctest/doctest.h>

using fed::kube::EventSource;
using fed::kube::EventType;
using fed::kube::InvolvedObject;
using fed::kube::make_event;

TEST_CASE("make_event: a Node's Event goes to default, named after the node, count 1") {
  const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(1795531105));
  const auto e =
      make_event(InvolvedObject{"v1", "Node", "", "node2", ""}, EventType::Warning,
                 "DatapathFailed", "no route", EventSource{"fed-agent-node", "node2"}, t);
  CHECK(e["metadata"]["namespace"] == "default");
  CHECK(e["metadata"]["name"].get<std::string>().rfind("node2.", 0) == 0);
  CHECK(e["involvedObject"] ==
        nlohmann::json{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "node2"}});
  CHECK(e["type"] == "Warning");
  CHECK(e["count"] == 1);
  CHECK(e["firstTimestamp"] == "2026-11-24T14:38:25Z");
  CHECK(e["lastTimestamp"] == e["firstTimestamp"]);
  CHECK(e["source"] == nlohmann::json{{"component", "fed-agent-node"}, {"host", "node2"}});
}

TEST_CASE("make_event: namespaced objects keep their namespace; long messages are cut to 1 kB") {
  const auto t = std::chrono::system_clock::now();
  const auto e =
      make_event(InvolvedObject{"v1", "ConfigMap", "ns1", "cm", "uid-1"}, EventType::Normal,
                 "Synced", std::string(5000, 'x'), EventSource{"c", ""}, t);
  CHECK(e["metadata"]["namespace"] == "ns1");
  CHECK(e["involvedObject"]["namespace"] == "ns1");
  CHECK(e["involvedObject"]["uid"] == "uid-1");
  CHECK(e["type"] == "Normal");
  CHECK(e["message"].get<std::string>().size() == 1024);
  CHECK_FALSE(e["source"].contains("host"));
  // Two Events about the same object made at different times get different names.
  const auto later =
      make_event(InvolvedObject{"v1", "ConfigMap", "ns1", "cm", ""}, EventType::Normal, "Synced",
                 "m", EventSource{"c", ""}, t + std::chrono::nanoseconds(1));
  CHECK(later["metadata"]["name"] != e["metadata"]["name"]);
}
