#include "shared/reconfig/change_set.hpp"

#include <doctest/doctest.h>

#include <string>

using fed::ErrorCode;
using nlohmann::json;
using namespace fed::reconfig;

namespace {

ChangeSet parse(const std::vector<std::string>& items) {
  auto set = parse_set_args(items);
  REQUIRE_MESSAGE(set.has_value(), set.error().message());
  return *set;
}

std::string parse_error(const std::vector<std::string>& items) {
  auto set = parse_set_args(items);
  REQUIRE_FALSE(set.has_value());
  CHECK(set.error().code() == ErrorCode::Invalid);
  return set.error().message();
}

bool mentions(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("parse_set_args keeps the order given, types each value and collects checkpoints") {
  const auto set = parse({"maxPods=50", "cpuManagerPolicy=static", "kubeReserved.memory=256Mi",
                          "evictionHard.memory.available=5%", "featureGates.MemoryManager=true"});
  REQUIRE(set.changes.size() == 5);
  CHECK(set.changes[0].key == "maxPods");
  CHECK(set.changes[0].value == 50);
  CHECK(set.changes[1].key == "cpuManagerPolicy");
  CHECK(set.changes[2].key == "kubeReserved.memory");
  CHECK(set.changes[3].key == "evictionHard.memory.available");  // the entry keeps its dot
  CHECK(set.changes[3].value == "5%");
  CHECK(set.changes[4].value == true);
  // Sorted and unique although both cpuManagerPolicy and kubeReserved name cpu_manager_state.
  CHECK(set.state_files == std::vector<std::string>{"cpu_manager_state", "memory_manager_state"});
  CHECK(parse({"maxPods=50"}).state_files.empty());
}

TEST_CASE("parse_set_args refuses an empty list, a key given twice and malformed items") {
  CHECK(mentions(parse_error({}), "no change given"));
  const auto twice = parse_error({"maxPods=50", "cpuManagerPolicy=none", "maxPods=60"});
  CHECK(mentions(twice, "--set maxPods is given twice"));
  // The same map entry twice is a duplicate; two entries of one map are not.
  CHECK(mentions(parse_error({"kubeReserved.cpu=1", "kubeReserved.cpu=2"}), "given twice"));
  CHECK(parse({"kubeReserved.cpu=1", "kubeReserved.memory=1Gi"}).changes.size() == 2);
  CHECK(
      mentions(parse_error({"cpuManagerPolicy"}), "--set cpuManagerPolicy: expected field=value"));
  CHECK(mentions(parse_error({"=static"}), "expected field=value"));
  CHECK(mentions(parse_error({"cpuManagerPolicy="}), "cpuManagerPolicy=: not one of none, static"));
  CHECK(mentions(parse_error({"cpuManagerPolicy=static", "maxPodz=5"}), "did you mean maxPods?"));
  // Everything after the first '=' is the value.
  CHECK(mentions(parse_error({"maxPods=5=5"}), "maxPods=5=5"));
}

TEST_CASE("to_json is flat and sorted; change_set_from_json gives the same set back") {
  const auto set =
      parse({"shutdownGracePeriod=90s", "podPidsLimit=-1", "failSwapOn=false",
             "reservedSystemCPUs=0", "kubeReserved.cpu=500m", "evictionHard.nodefs.available=10%",
             "featureGates.NodeSwap=true", "cpuManagerPolicy=static"});
  const json flat = to_json(set);
  CHECK(flat == json{{"shutdownGracePeriod", "1m30s"},
                     {"podPidsLimit", -1},
                     {"failSwapOn", false},
                     {"reservedSystemCPUs", "0"},
                     {"kubeReserved.cpu", "500m"},
                     {"evictionHard.nodefs.available", "10%"},
                     {"featureGates.NodeSwap", true},
                     {"cpuManagerPolicy", "static"}});
  CHECK(flat.dump().find("\"cpuManagerPolicy\"") < flat.dump().find("\"evictionHard"));
  // Through the annotation's text and back: the same values, types and checkpoints.
  auto back = change_set_from_json(json::parse(flat.dump()));
  REQUIRE_MESSAGE(back.has_value(), back.error().message());
  CHECK(to_json(*back) == flat);
  CHECK(back->state_files == set.state_files);
  CHECK(back->changes.size() == set.changes.size());
}

TEST_CASE("change_set_from_json re-checks what it reads through the allow-list") {
  CHECK(change_set_from_json(json::array()).error().code() == ErrorCode::Invalid);
  CHECK(mentions(change_set_from_json(json::object()).error().message(), "no change given"));
  CHECK(mentions(change_set_from_json(json{{"maxPods", 0}}).error().message(), "from 1 to 10000"));
  CHECK(mentions(change_set_from_json(json{{"staticPodPath", "/x"}}).error().message(),
                 "not a KubeletConfiguration field kubectl-fed may change"));
  CHECK(
      change_set_from_json(json{{"featureGates.SchedulerAsyncPreemption", true}}).error().code() ==
      ErrorCode::Invalid);
}

TEST_CASE("apply_changes sets the fields and keeps every other field and map entry") {
  const json config = {{"apiVersion", "kubelet.config.k8s.io/v1beta1"},
                       {"kind", "KubeletConfiguration"},
                       {"maxPods", 110},
                       {"cpuManagerPolicy", "none"},
                       {"featureGates", {{"KubeletTracing", true}}},
                       {"kubeReserved", {{"memory", "1Gi"}}},
                       {"authentication", {{"anonymous", {{"enabled", false}}}}},
                       {"someFutureField", {1, 2}}};
  const auto set =
      parse({"cpuManagerPolicy=static", "featureGates.MemoryManager=true", "kubeReserved.cpu=500m",
             "systemReserved.cpu=250m", "evictionHard.memory.available=200Mi"});
  const json merged = apply_changes(config, set);
  json want = config;
  want["cpuManagerPolicy"] = "static";
  want["featureGates"]["MemoryManager"] = true;
  want["kubeReserved"]["cpu"] = "500m";
  want["systemReserved"] = {{"cpu", "250m"}};
  want["evictionHard"] = {{"memory.available", "200Mi"}};
  CHECK(merged == want);
  CHECK(apply_changes(merged, set) == merged);  // applying twice changes nothing

  // A map field that is null (or not a map) becomes a map holding the entry.
  json nulls = {{"kind", "KubeletConfiguration"}, {"featureGates", nullptr}};
  CHECK(apply_changes(nulls, parse({"featureGates.NodeSwap=false"}))["featureGates"] ==
        json{{"NodeSwap", false}});
}

TEST_CASE("values_at reads the set's keys back, null where absent") {
  const auto set = parse({"maxPods=50", "cpuManagerPolicy=static", "kubeReserved.cpu=1",
                          "featureGates.NodeSwap=true", "evictionHard.memory.available=5%"});
  const json config = {{"maxPods", 110},
                       {"kubeReserved", {{"memory", "1Gi"}}},
                       {"featureGates", {{"NodeSwap", false}}},
                       {"evictionHard", {{"memory.available", "100Mi"}}}};
  CHECK(values_at(config, set) == json{{"maxPods", 110},
                                       {"cpuManagerPolicy", nullptr},
                                       {"kubeReserved.cpu", nullptr},
                                       {"featureGates.NodeSwap", false},
                                       {"evictionHard.memory.available", "100Mi"}});
  const json all_null = values_at(json::object(), set);
  for (const auto& [key, value] : all_null.items()) CHECK(value.is_null());
  CHECK(all_null.size() == 5);
}

TEST_CASE("mismatches lists each differing key with both values; empty and absent are equal") {
  const json config = {{"maxPods", 110},
                       {"cpuManagerPolicy", "none"},
                       {"featureGates", {{"NodeSwap", true}}},
                       {"reservedSystemCPUs", ""}};
  CHECK(mismatches(config, json{{"maxPods", 110}, {"featureGates.NodeSwap", true}}).empty());
  CHECK(mismatches(config, json{{"maxPods", 110u}}).empty());  // signed and unsigned 110
  CHECK(mismatches(config, json::object()).empty());
  const auto diff = mismatches(config, json{{"maxPods", 50},
                                            {"cpuManagerPolicy", "static"},
                                            {"kubeReserved.cpu", "500m"},
                                            {"featureGates.NodeSwap", true}});
  CHECK(diff == std::vector<std::string>{"cpuManagerPolicy: want \"static\", have \"none\"",
                                         "kubeReserved.cpu: want \"500m\", have (unset)",
                                         "maxPods: want 50, have 110"});
  // The kubelet leaves empty strings out of /configz: "" and absent are the same setting, and an
  // original value of null (absent) matches a config that lacks the key.
  CHECK(mismatches(config, json{{"reservedSystemCPUs", nullptr}}).empty());
  CHECK(mismatches(json::object(), json{{"reservedSystemCPUs", ""}}).empty());
  CHECK(mismatches(json::object(), json{{"kubeReserved.cpu", nullptr}}).empty());
  CHECK(mismatches(config, json{{"maxPods", nullptr}}) ==
        std::vector<std::string>{"maxPods: want null, have 110"});
}

TEST_CASE("check_merged: the static CPU policy needs a CPU reservation") {
  const json base = {{"kind", "KubeletConfiguration"}, {"cpuManagerPolicy", "static"}};
  auto refused = check_merged(base);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code() == ErrorCode::Invalid);
  CHECK(mentions(refused.error().message(), "cpuManagerPolicy=static"));
  CHECK(mentions(refused.error().message(), "--set reservedSystemCPUs=0"));

  CHECK(check_merged(apply_changes(base, parse({"reservedSystemCPUs=0"}))).has_value());
  CHECK(check_merged(apply_changes(base, parse({"kubeReserved.cpu=500m"}))).has_value());
  CHECK(check_merged(apply_changes(base, parse({"systemReserved.cpu=1"}))).has_value());
  // A zero, empty or memory-only reservation does not count.
  CHECK_FALSE(check_merged(apply_changes(base, parse({"kubeReserved.cpu=0"}))).has_value());
  CHECK_FALSE(check_merged(apply_changes(base, parse({"systemReserved.cpu=0m"}))).has_value());
  CHECK_FALSE(check_merged(apply_changes(base, parse({"kubeReserved.memory=1Gi"}))).has_value());
  json empty_cpus = base;
  empty_cpus["reservedSystemCPUs"] = "";
  CHECK_FALSE(check_merged(empty_cpus).has_value());
  // Other policies need nothing.
  CHECK(check_merged(json{{"cpuManagerPolicy", "none"}}).has_value());
  CHECK(check_merged(json::object()).has_value());
}

TEST_CASE("check_merged: the image GC low threshold must be below the high one") {
  CHECK(check_merged(json{{"imageGCHighThresholdPercent", 85}, {"imageGCLowThresholdPercent", 80}})
            .has_value());
  for (int low : {85, 90}) {
    auto refused = check_merged(
        json{{"imageGCHighThresholdPercent", 85}, {"imageGCLowThresholdPercent", low}});
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code() == ErrorCode::Invalid);
    CHECK(mentions(refused.error().message(),
                   "imageGCLowThresholdPercent (" + std::to_string(low) +
                       ") must be below imageGCHighThresholdPercent (85)"));
  }
  // Both come from the merged config: a change of one is checked against the file's other.
  const json file = {{"imageGCHighThresholdPercent", 70}, {"imageGCLowThresholdPercent", 60}};
  CHECK_FALSE(
      check_merged(apply_changes(file, parse({"imageGCLowThresholdPercent=75"}))).has_value());
  CHECK(check_merged(apply_changes(file, parse({"imageGCHighThresholdPercent=90"}))).has_value());
}
