#include "agent/podpreset/pod_preset_merge.hpp"

#include <doctest/doctest.h>

#include "shared/util/base64.hpp"

using fed::podpreset::inject;
using fed::podpreset::matching_presets;
using fed::podpreset::review_pod;
using nlohmann::json;

namespace {

json preset(const std::string& name, json selector, json spec_extra) {
  json spec = std::move(spec_extra);
  spec["selector"] = std::move(selector);
  return {{"apiVersion", "settings.kubectl-fed.io/v1alpha1"},
          {"kind", "PodPreset"},
          {"metadata", {{"name", name}, {"namespace", "shop"}, {"resourceVersion", "7"}}},
          {"spec", spec}};
}

json pod(json labels, json containers) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "web-1"}, {"namespace", "shop"}, {"labels", labels}}},
          {"spec", {{"containers", containers}}}};
}

const json kDbEnv = {{"env", {{{"name", "DB_HOST"}, {"value", "db.shop"}}}}};
const json kCacheVolume = {{"volumes", {{{"name", "cache"}, {"emptyDir", json::object()}}}},
                           {"volumeMounts", {{{"name", "cache"}, {"mountPath", "/cache"}}}}};

// The pod after applying a JSON patch made only of add/replace at the paths inject() uses.
json patched(json object, const json& patch) {
  for (const auto& op : patch) {
    object[json::json_pointer(op["path"].get<std::string>())] = op["value"];
  }
  return object;
}

json review(const json& object, std::string operation = "CREATE") {
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "u1"},
            {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
            {"operation", operation},
            {"namespace", "shop"},
            {"object", object}}}};
}

}  // namespace

TEST_CASE("podpreset: presets match by label selector, in name order") {
  const json web = pod({{"app", "web"}, {"tier", "front"}}, json::array());
  const std::vector<json> presets = {
      preset("z-all", json::object(), kDbEnv),
      preset("a-web", {{"matchLabels", {{"app", "web"}}}}, kDbEnv),
      preset("db-only", {{"matchLabels", {{"app", "db"}}}}, kDbEnv),
      preset(
          "not-back",
          {{"matchExpressions", {{{"key", "tier"}, {"operator", "NotIn"}, {"values", {"back"}}}}}},
          kDbEnv),
      preset("broken", {{"matchExpressions", {{{"key", "tier"}, {"operator", "Near"}}}}}, kDbEnv)};
  std::vector<std::string> names;
  for (const auto& p : matching_presets(web, presets)) names.push_back(p["metadata"]["name"]);
  CHECK(names == std::vector<std::string>{"a-web", "not-back", "z-all"});
}

TEST_CASE("podpreset: env, envFrom, volumes and mounts reach every container") {
  json spec = kCacheVolume;
  spec["env"] = kDbEnv["env"];
  spec["envFrom"] = {{{"configMapRef", {{"name", "shop-settings"}}}}};
  const json p = preset("shop", json::object(), spec);
  json object = pod(
      {{"app", "web"}},
      {{{"name", "web"}, {"image", "busybox"}},
       {{"name", "side"}, {"image", "busybox"}, {"env", {{{"name", "MODE"}, {"value", "x"}}}}}});
  object["spec"]["initContainers"] = {{{"name", "init"}, {"image", "busybox"}}};
  const auto injection = inject(object, {p});
  REQUIRE(injection.conflict.empty());
  CHECK(injection.applied == std::vector<std::string>{"shop"});
  const json after = patched(object, injection.patch);
  for (const auto& c : {after["spec"]["containers"][0], after["spec"]["initContainers"][0]}) {
    CHECK(c["env"] == kDbEnv["env"]);
    CHECK(c["envFrom"][0]["configMapRef"]["name"] == "shop-settings");
    CHECK(c["volumeMounts"] == kCacheVolume["volumeMounts"]);
  }
  // The pod's own entries come first and stay.
  CHECK(after["spec"]["containers"][1]["env"] ==
        json({{{"name", "MODE"}, {"value", "x"}}, {{"name", "DB_HOST"}, {"value", "db.shop"}}}));
  CHECK(after["spec"]["volumes"] == kCacheVolume["volumes"]);
  CHECK(after["metadata"]["annotations"]["podpreset.admission.kubernetes.io/podpreset-shop"] ==
        "7");
}

TEST_CASE("podpreset: an existing annotation map gets one escaped key per preset") {
  json object = pod({{"app", "web"}}, {{{"name", "web"}}});
  object["metadata"]["annotations"] = {{"team", "a"}};
  const auto injection = inject(object, {preset("p", json::object(), kDbEnv)});
  bool found = false;
  for (const auto& op : injection.patch) {
    if (op["path"] == "/metadata/annotations/podpreset.admission.kubernetes.io~1podpreset-p") {
      found = true;
    }
  }
  CHECK(found);
  CHECK(patched(object, injection.patch)["metadata"]["annotations"]["team"] == "a");
}

TEST_CASE("podpreset: the same definition twice is no conflict and not duplicated") {
  json object = pod({{"app", "web"}}, {{{"name", "web"}, {"env", kDbEnv["env"]}}});
  const auto injection =
      inject(object, {preset("a", json::object(), kDbEnv), preset("b", json::object(), kDbEnv)});
  REQUIRE(injection.conflict.empty());
  CHECK(patched(object, injection.patch)["spec"]["containers"][0]["env"].size() == 1);
  CHECK(injection.applied == std::vector<std::string>{"a", "b"});
}

TEST_CASE("podpreset: a conflict leaves the whole pod untouched and says which") {
  const json other_env = {{"env", {{{"name", "DB_HOST"}, {"value", "other"}}}}};
  SUBCASE("env of the pod") {
    json object = pod({}, {{{"name", "web"}, {"env", other_env["env"]}}});
    const auto injection = inject(object, {preset("p", json::object(), kDbEnv)});
    CHECK(injection.patch.empty());
    CHECK(injection.conflict.find("PodPreset p") != std::string::npos);
    CHECK(injection.conflict.find("env DB_HOST of container web") != std::string::npos);
  }
  SUBCASE("two presets disagree") {
    json object = pod({}, {{{"name", "web"}}});
    const auto injection = inject(
        object, {preset("a", json::object(), kDbEnv), preset("b", json::object(), other_env)});
    CHECK(injection.patch.empty());
    CHECK(injection.conflict.find("PodPreset b") != std::string::npos);
  }
  SUBCASE("a volume of the same name") {
    json object = pod({}, {{{"name", "web"}}});
    object["spec"]["volumes"] = {{{"name", "cache"}, {"hostPath", {{"path", "/tmp"}}}}};
    const auto injection = inject(object, {preset("p", json::object(), kCacheVolume)});
    CHECK(injection.patch.empty());
    CHECK(injection.conflict.find("volume cache of the pod") != std::string::npos);
  }
  SUBCASE("a mount path taken by another volume") {
    json object = pod(
        {}, {{{"name", "web"}, {"volumeMounts", {{{"name", "data"}, {"mountPath", "/cache"}}}}}});
    const auto injection = inject(object, {preset("p", json::object(), kCacheVolume)});
    CHECK(injection.patch.empty());
    CHECK(injection.conflict.find("mount path /cache") != std::string::npos);
  }
}

TEST_CASE("podpreset: the AdmissionReview answer") {
  const std::vector<json> presets = {preset("p", {{"matchLabels", {{"app", "web"}}}}, kDbEnv)};
  const json web = pod({{"app", "web"}}, {{{"name", "web"}}});

  SUBCASE("a matching pod is patched") {
    auto answer = review_pod(review(web), presets);
    REQUIRE(answer);
    const json& r = (*answer)["response"];
    CHECK(r["uid"] == "u1");
    CHECK(r["allowed"] == true);
    REQUIRE(r["patchType"] == "JSONPatch");
    const json patch = json::parse(*fed::util::base64_decode(r["patch"].get<std::string>()));
    CHECK(patched(web, patch)["spec"]["containers"][0]["env"] == kDbEnv["env"]);
  }
  SUBCASE("no match, an exclusion, a mirror pod, an update: unchanged") {
    json other = pod({{"app", "db"}}, {{{"name", "db"}}});
    json excluded = web;
    excluded["metadata"]["annotations"] = {{"podpreset.admission.kubernetes.io/exclude", "true"}};
    json mirror = web;
    mirror["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "x"}};
    for (const auto& r : {review(other), review(excluded), review(mirror), review(web, "UPDATE")}) {
      auto answer = review_pod(r, presets);
      REQUIRE(answer);
      CHECK((*answer)["response"]["allowed"] == true);
      CHECK_FALSE((*answer)["response"].contains("patch"));
    }
  }
  SUBCASE("a conflict is admitted with a warning") {
    json object = pod({{"app", "web"}}, {{{"name", "web"}, {"env", {{{"name", "DB_HOST"}}}}}});
    auto answer = review_pod(review(object), presets);
    REQUIRE(answer);
    CHECK((*answer)["response"]["allowed"] == true);
    CHECK_FALSE((*answer)["response"].contains("patch"));
    CHECK((*answer)["response"]["warnings"][0].get<std::string>().find("no PodPreset applied") ==
          0);
  }
  SUBCASE("not a pod review") {
    json wrong = review(web);
    wrong["request"]["kind"]["kind"] = "Service";
    CHECK_FALSE(review_pod(wrong, presets));
    CHECK_FALSE(review_pod(json::object(), presets));
  }
}
