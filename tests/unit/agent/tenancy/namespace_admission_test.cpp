#include "agent/tenancy/namespace_admission.hpp"

#include <doctest/doctest.h>

using fed::ErrorCode;
using fed::tenancy::answer_namespace_create;
using fed::tenancy::parse_namespace_create;
using nlohmann::json;

namespace {

json review(json labels, std::string operation = "CREATE", bool dry_run = false) {
  json object{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "shop-c1"}}}};
  if (!labels.is_null()) object["metadata"]["labels"] = labels;
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "uid-1"},
            {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Namespace"}}},
            {"operation", operation},
            {"name", "shop-c1"},
            {"dryRun", dry_run},
            {"object", object}}}};
}

const json kReplica{{"kubectl-fed.io/origin-cluster", "c1"}};

}  // namespace

TEST_CASE("namespace cap: a replica create is read with its consumer") {
  auto create = parse_namespace_create(review(kReplica, "CREATE", true));
  REQUIRE(create);
  CHECK(create->request.uid == "uid-1");
  CHECK(create->name == "shop-c1");
  CHECK(create->consumer == "c1");
  CHECK(create->request.dry_run);
  CHECK_FALSE(parse_namespace_create(review(nullptr))->consumer);
}

TEST_CASE("namespace cap: anything but a Namespace CREATE review is refused as invalid") {
  CHECK(parse_namespace_create(json::object()).error().code() == ErrorCode::Invalid);
  CHECK_FALSE(parse_namespace_create(review(kReplica, "DELETE")));
  json pod = review(kReplica);
  pod["request"]["kind"]["kind"] = "Pod";
  CHECK_FALSE(parse_namespace_create(pod));
  json no_uid = review(kReplica);
  no_uid["request"].erase("uid");
  CHECK(parse_namespace_create(no_uid).error().message().find("uid") != std::string::npos);
}

TEST_CASE("namespace cap: below the cap allowed, at the cap refused with the fix") {
  auto create = *parse_namespace_create(review(kReplica));
  json below = answer_namespace_create(create, 1, 2);
  CHECK(below["kind"] == "AdmissionReview");
  CHECK(below["response"]["uid"] == "uid-1");
  CHECK(below["response"]["allowed"] == true);

  json at = answer_namespace_create(create, 2, 2);
  CHECK(at["response"]["allowed"] == false);
  CHECK(at["response"]["status"]["code"] == 403);
  const std::string message = at["response"]["status"]["message"];
  CHECK(message.find("consumer c1 already holds 2 replica namespace(s)") != std::string::npos);
  CHECK(message.find("--namespace-quota 2") != std::string::npos);
  CHECK(message.find("unoffload") != std::string::npos);

  // 0 is no cap; a namespace that is no replica is not counted here.
  CHECK(answer_namespace_create(create, 500, 0)["response"]["allowed"] == true);
  auto plain = *parse_namespace_create(review(nullptr));
  CHECK(answer_namespace_create(plain, 5, 2)["response"]["allowed"] == true);
}
