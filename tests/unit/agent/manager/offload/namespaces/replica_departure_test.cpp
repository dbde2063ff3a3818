// Which PodDisruptionBudget keeps a pod on a member that an offloading no longer selects.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "agent/manager/offload/namespaces/replica_departure.hpp"

using fed::offload::budget_holding;
using nlohmann::json;

namespace {

json pod(json labels) {
  return {{"metadata", {{"name", "web-1"}, {"labels", labels}}}};
}

json budget(const std::string& name, json selector, int allowed) {
  return {{"metadata", {{"name", name}}},
          {"spec", {{"selector", selector}}},
          {"status", {{"disruptionsAllowed", allowed}}}};
}

}  // namespace

TEST_CASE("no budget, or none selecting the pod, holds it") {
  CHECK_FALSE(budget_holding(json::array(), pod({{"app", "web"}})));
  const json budgets = json::array({budget("db", {{"matchLabels", {{"app", "db"}}}}, 0)});
  CHECK_FALSE(budget_holding(budgets, pod({{"app", "web"}})));
}

TEST_CASE("a budget selecting the pod holds it only while it allows no disruption") {
  const json selector = {{"matchLabels", {{"app", "web"}}}};
  CHECK_FALSE(budget_holding(json::array({budget("web", selector, 1)}), pod({{"app", "web"}})));
  const auto held =
      budget_holding(json::array({budget("web", selector, 0)}), pod({{"app", "web"}}));
  REQUIRE(held);
  CHECK(*held == "web (0 disruptions allowed)");
}

TEST_CASE("a budget without status yet (the disruption controller has not counted) holds") {
  json b =
      budget("web",
             {{"matchExpressions",
               json::array({{{"key", "app"}, {"operator", "In"}, {"values", {"web", "api"}}}})}},
             0);
  b.erase("status");
  CHECK(budget_holding(json::array({b}), pod({{"app", "api"}})));
}

TEST_CASE("an empty selector selects every pod of the namespace; a pod without labels too") {
  CHECK(budget_holding(json::array({budget("all", json::object(), 0)}), pod(nullptr)));
}

TEST_CASE("the first holding budget is named when several select the pod") {
  const json budgets = json::array({budget("loose", json::object(), 3),
                                    budget("tight", {{"matchLabels", {{"app", "web"}}}}, 0)});
  CHECK(*budget_holding(budgets, pod({{"app", "web"}})) == "tight (0 disruptions allowed)");
}
