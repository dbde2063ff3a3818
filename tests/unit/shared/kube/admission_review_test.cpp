#include "shared/kube/admission_review.hpp"

#include <doctest/doctest.h>

using fed::kube::admission_allowed;
using fed::kube::admission_answer;
using fed::kube::parse_admission_request;
using nlohmann::json;

namespace {

json review() {
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "u-1"},
            {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
            {"operation", "CREATE"},
            {"namespace", "shop"},
            {"dryRun", true},
            {"object", {{"metadata", {{"generateName", "web-"}}}}}}}};
}

}  // namespace

TEST_CASE("admission review: the request's fields, read once") {
  auto request = parse_admission_request(review(), "Pod");
  REQUIRE(request);
  CHECK(request->uid == "u-1");
  CHECK(request->operation == "CREATE");
  CHECK(request->ns == "shop");
  CHECK(request->name.empty());
  CHECK(request->sub_resource.empty());
  CHECK(request->dry_run);
  CHECK(request->object["metadata"]["generateName"] == "web-");
}

TEST_CASE("admission review: anything else is Invalid, saying what is wrong") {
  auto message = [](const json& r, const char* kind = "Pod") {
    auto parsed = parse_admission_request(r, kind);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().code() == fed::ErrorCode::Invalid);
    return parsed.error().message();
  };
  CHECK(message(json::object()) == "not an AdmissionReview request");
  json no_uid = review();
  no_uid["request"].erase("uid");
  CHECK(message(no_uid).find("request.uid") != std::string::npos);
  CHECK(message(review(), "Namespace").find("not for a Namespace object") != std::string::npos);
  json no_object = review();
  no_object["request"].erase("object");
  CHECK(message(no_object).find("not for a Pod object") != std::string::npos);
  // Found by the api_stream fuzz target: fields of another type were json type_errors (the
  // webhook answered 500 from its exception handler instead of 400).
  json odd = review();
  odd["request"]["kind"] = {{"kind", {{"not", "a string"}}}};
  CHECK(message(odd).find("not for a Pod object") != std::string::npos);
  odd = review();
  odd["request"]["uid"] = 7;
  CHECK(message(odd).find("request.uid") != std::string::npos);
  odd = review();
  odd["request"]["dryRun"] = "yes";
  CHECK(message(odd).find("request.dryRun must be true or false") != std::string::npos);
  odd = review();
  odd["kind"] = json::array();
  CHECK(message(odd) == "not an AdmissionReview request");
  odd = review();
  odd["request"]["namespace"] = 1;
  auto lenient = parse_admission_request(odd, "Pod");
  REQUIRE(lenient);
  CHECK(lenient->ns.empty());
}

TEST_CASE("admission review: the answer echoes the apiVersion and the uid") {
  json v1beta1 = review();
  v1beta1["apiVersion"] = "admission.k8s.io/v1beta1";
  auto request = parse_admission_request(v1beta1, "Pod");
  REQUIRE(request);
  const json allowed = admission_allowed(*request);
  CHECK(allowed == json{{"apiVersion", "admission.k8s.io/v1beta1"},
                        {"kind", "AdmissionReview"},
                        {"response", {{"allowed", true}, {"uid", "u-1"}}}});
  const json refused =
      admission_answer(*request, {{"allowed", false}, {"status", {{"code", 403}}}});
  CHECK(refused["response"]["uid"] == "u-1");
  CHECK(refused["response"]["status"]["code"] == 403);
}
