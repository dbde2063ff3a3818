#include "shared/kube/label_selector.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

namespace fed::kube {

namespace {
LabelSelector parse_ok(std::string_view s) {
  auto r = LabelSelector::parse(s);
  if (!r) FAIL_CHECK(r.error().message());
  REQUIRE(r);
  return *r;
}
}  // namespace

TEST_CASE("equality-based selectors") {
  const auto s = parse_ok("app=web,tier!=db, env == prod");
  CHECK(s.requirements().size() == 3);
  CHECK(s.matches({{"app", "web"}, {"tier", "front"}, {"env", "prod"}}));
  CHECK(s.matches({{"app", "web"}, {"env", "prod"}}));  // != matches an absent key
  CHECK_FALSE(s.matches({{"app", "web"}, {"tier", "db"}, {"env", "prod"}}));
  CHECK_FALSE(s.matches({{"app", "api"}, {"env", "prod"}}));
  CHECK(s.to_string() == "app=web,env=prod,tier!=db");
}

TEST_CASE("set-based selectors and existence") {
  const auto s = parse_ok("env in (prod, staging),tier notin (db),gpu,!legacy");
  CHECK(s.matches({{"env", "prod"}, {"gpu", ""}}));
  CHECK(s.matches({{"env", "staging"}, {"tier", "web"}, {"gpu", "yes"}}));
  CHECK_FALSE(s.matches({{"env", "dev"}, {"gpu", "yes"}}));
  CHECK_FALSE(s.matches({{"env", "prod"}}));                                 // gpu missing
  CHECK_FALSE(s.matches({{"env", "prod"}, {"gpu", "1"}, {"legacy", "1"}}));  // !legacy
  CHECK_FALSE(s.matches({{"env", "prod"}, {"gpu", "1"}, {"tier", "db"}}));
  CHECK(s.to_string() == "env in (prod,staging),gpu,!legacy,tier notin (db)");
}

TEST_CASE("the canonical string parses back to the same selector") {
  for (const char* text :
       {"a=b", "x in (c,b,a)", "!k,k2", "example.com/role=node,n>3,m<10", "k=", "a.b-c_d=v"}) {
    CAPTURE(text);
    const auto s = parse_ok(text);
    const auto again = parse_ok(s.to_string());
    CHECK(again.to_string() == s.to_string());
  }
  CHECK(parse_ok("x in (c,b,a)").to_string() == "x in (a,b,c)");
}

TEST_CASE("empty selector matches everything") {
  const auto s = parse_ok("   ");
  CHECK(s.empty());
  CHECK(s.matches({}));
  CHECK(s.to_string().empty());
}

TEST_CASE("greater/less than compare integers") {
  const auto s = parse_ok("replicas>2,zone<5");
  CHECK(s.matches({{"replicas", "3"}, {"zone", "1"}}));
  CHECK_FALSE(s.matches({{"replicas", "2"}, {"zone", "1"}}));
  CHECK_FALSE(s.matches({{"replicas", "x"}, {"zone", "1"}}));
}

TEST_CASE("malformed selectors are Invalid and name the position") {
  for (const char* bad : {"a=b,", "=b", "a in b", "a in (b", "a b", "-bad=x", "a=b=c", "a>x", "!",
                          "a notin", "k=-v-"}) {
    CAPTURE(bad);
    auto r = LabelSelector::parse(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message().find("label selector") != std::string::npos);
  }
  auto r = LabelSelector::parse("a=b c");
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("position 4") != std::string::npos);
}

TEST_CASE("label key and value validation") {
  CHECK(is_valid_label_key("app"));
  CHECK(is_valid_label_key("app.kubernetes.io/name"));
  CHECK_FALSE(is_valid_label_key("App.Example.com/name"));  // prefix must be lowercase
  CHECK_FALSE(is_valid_label_key(std::string(64, 'a')));
  CHECK_FALSE(is_valid_label_key("a/"));
  CHECK(is_valid_label_value(""));
  CHECK(is_valid_label_value("v1.2_3-x"));
  CHECK_FALSE(is_valid_label_value("-x"));
}

TEST_CASE("metav1.LabelSelector objects") {
  auto j = nlohmann::json::parse(R"({"matchLabels":{"app":"web"},
    "matchExpressions":[{"key":"env","operator":"In","values":["a","b"]},
                        {"key":"old","operator":"DoesNotExist"}]})");
  auto s = LabelSelector::from_json(j);
  REQUIRE(s);
  CHECK(s->to_string() == "app=web,env in (a,b),!old");
  CHECK(s->matches_json(nlohmann::json{{"app", "web"}, {"env", "a"}}));
  CHECK_FALSE(s->matches_json(nlohmann::json{{"app", "web"}, {"env", "a"}, {"old", "x"}}));

  auto all = LabelSelector::from_json(nlohmann::json::object());
  REQUIRE(all);
  CHECK(all->matches({}));
  auto none = LabelSelector::from_json(nullptr);
  REQUIRE(none);
  CHECK(none->matches_nothing());
  CHECK_FALSE(none->matches({}));

  CHECK_FALSE(LabelSelector::from_json(
      nlohmann::json::parse(R"({"matchExpressions":[{"key":"a","operator":"In","values":[]}]})")));
  CHECK_FALSE(LabelSelector::from_json(nlohmann::json::parse(
      R"({"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]})")));
  CHECK_FALSE(LabelSelector::from_json(
      nlohmann::json::parse(R"({"matchExpressions":[{"key":"a","operator":"Has"}]})")));
}

TEST_CASE("labels_of reads metadata.labels") {
  auto obj = nlohmann::json::parse(R"({"metadata":{"labels":{"a":"1","b":2}}})");
  CHECK(labels_of(obj) == Labels{{"a", "1"}});
  CHECK(labels_of(nlohmann::json::object()).empty());
}

}  // namespace fed::kube
