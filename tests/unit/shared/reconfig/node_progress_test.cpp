#include "shared/reconfig/node_progress.hpp"

#include <doctest/doctest.h>

#include <string>

#include "shared/util/rfc3339.hpp"

using fed::ErrorCode;
using nlohmann::json;
using namespace fed::reconfig;

namespace {

const std::string kPhase = "kubectl-fed.io/reconfigure-phase";
const std::string kDesired = "kubectl-fed.io/reconfigure-desired";
const std::string kOriginal = "kubectl-fed.io/reconfigure-original";

constexpr Phase kAll[] = {Phase::Started,   Phase::ConfigWritten, Phase::Restarted,
                          Phase::Succeeded, Phase::RollingBack,   Phase::RolledBack,
                          Phase::Failed};

// A Node as the API server returns it, with `annotations`.
json node_with(json annotations) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", "node1"}, {"annotations", std::move(annotations)}}}};
}

// A Node carrying a Started progress, with one annotation replaced by `value`.
json node_with_one(const std::string& key, const std::string& value) {
  json a = {
      {kPhase, "Started"}, {kDesired, R"({"maxPods":50})"}, {kOriginal, R"({"maxPods":110})"}};
  a[key] = value;
  return node_with(a);
}

}  // namespace

TEST_CASE("every phase prints and parses back; unknown text names the annotation") {
  for (Phase phase : kAll) {
    INFO(to_string(phase));
    CHECK(parse_phase(to_string(phase)).value() == phase);
  }
  auto bad = parse_phase("Done");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code() == ErrorCode::Invalid);
  CHECK(bad.error().message().find(kPhase) != std::string::npos);
  CHECK(bad.error().message().find("\"Done\"") != std::string::npos);
  CHECK_FALSE(parse_phase("started").has_value());
}

TEST_CASE("in_progress: the phases an agent must finish or undo before anything else") {
  CHECK(in_progress(Phase::Started));
  CHECK(in_progress(Phase::ConfigWritten));
  CHECK(in_progress(Phase::Restarted));
  CHECK(in_progress(Phase::RollingBack));
  CHECK_FALSE(in_progress(Phase::Succeeded));
  CHECK_FALSE(in_progress(Phase::RolledBack));
  CHECK_FALSE(in_progress(Phase::Failed));
}

TEST_CASE("progress_patch sets the five annotations, as strings, with the time of the update") {
  Progress p;
  p.phase = Phase::ConfigWritten;
  p.desired = {{"cpuManagerPolicy", "static"}, {"reservedSystemCPUs", "0"}};
  p.original = {{"cpuManagerPolicy", "none"}, {"reservedSystemCPUs", nullptr}};
  const auto now = fed::util::parse_rfc3339("2025-03-01T10:20:30Z").value();
  const json patch = progress_patch(p, now);
  const json& a = patch.at("metadata").at("annotations");
  CHECK(patch.size() == 1);
  CHECK(a.size() == 5);
  for (const auto& [key, value] : a.items()) {
    INFO(key);
    CHECK(key.rfind(kAnnotationPrefix, 0) == 0);
    CHECK(value.is_string());  // annotations are map[string]string
  }
  CHECK(a[kPhase] == "ConfigWritten");
  CHECK(json::parse(a[kDesired].get<std::string>()) == p.desired);
  CHECK(a["kubectl-fed.io/reconfigure-message"] == "");
  CHECK(a["kubectl-fed.io/reconfigure-updated"] == "2025-03-01T10:20:30Z");
}

TEST_CASE("progress written as a merge patch reads back from the Node unchanged") {
  for (Phase phase : kAll) {
    Progress p;
    p.phase = phase;
    p.desired = {{"featureGates.NodeSwap", true}, {"maxPods", 50}};
    p.original = {{"featureGates.NodeSwap", nullptr}, {"maxPods", 110}};
    p.message = "kubelet /healthz: connection refused";
    json node = node_with({{"other.io/keep", "me"}});
    const auto now = fed::util::parse_rfc3339("2025-03-01T10:20:30Z").value();
    node.merge_patch(progress_patch(p, now));
    CHECK(node["metadata"]["annotations"]["other.io/keep"] == "me");  // others untouched

    auto back = progress_from_node(node);
    REQUIRE_MESSAGE(back.has_value(), back.error().message());
    REQUIRE(back->has_value());
    const Progress& r = **back;
    CHECK(r.phase == phase);
    CHECK(r.desired == p.desired);
    CHECK(r.original == p.original);
    CHECK(r.message == p.message);
    CHECK(r.updated == "2025-03-01T10:20:30Z");
  }
}

TEST_CASE("a Node without a recorded phase has no progress") {
  for (const json& node :
       {json::object(), json{{"metadata", {{"name", "n"}}}}, node_with(json::object()),
        node_with(nullptr), node_with({{kDesired, "{}"}, {kOriginal, "{}"}})}) {
    INFO(node.dump());
    auto r = progress_from_node(node);
    REQUIRE(r.has_value());
    CHECK_FALSE(r->has_value());
  }
}

TEST_CASE("corrupted annotations are Invalid and name the annotation and the way out") {
  struct Case {
    std::string key, value;
  };
  for (const auto& [key, value] :
       {Case{kPhase, "Finished"}, Case{kDesired, "{not json"}, Case{kDesired, "[1,2]"},
        Case{kOriginal, ""}, Case{kOriginal, "\"maxPods\""}}) {
    INFO(key, " = ", value);
    auto r = progress_from_node(node_with_one(key, value));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message().find(key) != std::string::npos);
    if (key != kPhase) {
      CHECK(r.error().message().find("remove the kubectl-fed.io/reconfigure-* annotations") !=
            std::string::npos);
    }
  }
  // The same node with readable values parses.
  CHECK(progress_from_node(node_with_one(kPhase, "Started")).value().has_value());
}
