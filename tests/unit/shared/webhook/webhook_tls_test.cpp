#include "shared/webhook/webhook_tls.hpp"

#include <doctest/doctest.h>

using namespace std::chrono_literals;
using fed::webhook::renew;
using fed::webhook::WebhookLifetimes;

namespace {

const WebhookLifetimes kShort{3h, 1h};
const std::vector<std::string> kNames =
    fed::webhook::service_dns_names("fed-manager-webhook", "kubectl-fed-system");

}  // namespace

TEST_CASE("service names") {
  CHECK(kNames ==
        std::vector<std::string>{"fed-manager-webhook.kubectl-fed-system.svc",
                                 "fed-manager-webhook.kubectl-fed-system.svc.cluster.local"});
}

TEST_CASE("first start: a CA, a serving certificate it signed, the CA alone in the bundle") {
  const auto now = std::chrono::system_clock::now();
  auto tls = renew(std::nullopt, kNames, now, kShort);
  REQUIRE(tls);
  CHECK(fed::pki::signed_by(tls->serving.cert_pem, tls->ca.cert_pem));
  CHECK(tls->ca_bundle == tls->ca.cert_pem);
  // Nothing due: unchanged.
  auto again = renew(*tls, kNames, now + 10min, kShort);
  REQUIRE(again);
  CHECK(*again == *tls);
}

TEST_CASE("the serving certificate is renewed in its last third, under the same CA") {
  const auto now = std::chrono::system_clock::now();
  auto tls = renew(std::nullopt, kNames, now, kShort);
  REQUIRE(tls);
  auto later = renew(*tls, kNames, now + 45min, kShort);
  REQUIRE(later);
  CHECK(later->ca.cert_pem == tls->ca.cert_pem);
  CHECK(later->serving.cert_pem != tls->serving.cert_pem);
  CHECK(fed::pki::signed_by(later->serving.cert_pem, tls->ca.cert_pem));
  CHECK(later->ca_bundle == tls->ca_bundle);
}

TEST_CASE("a renewed CA is published with the previous one until that expires") {
  const auto now = std::chrono::system_clock::now();
  auto tls = renew(std::nullopt, kNames, now, kShort);
  REQUIRE(tls);
  auto rotated = renew(*tls, kNames, now + 2h + 10min, kShort);
  REQUIRE(rotated);
  CHECK(rotated->ca.cert_pem != tls->ca.cert_pem);
  CHECK(fed::pki::signed_by(rotated->serving.cert_pem, rotated->ca.cert_pem));
  CHECK(rotated->ca_bundle == rotated->ca.cert_pem + tls->ca.cert_pem);
  // Still both a little later (the old CA is valid for 3 h).
  auto kept = renew(*rotated, kNames, now + 2h + 20min, kShort);
  REQUIRE(kept);
  CHECK(kept->ca_bundle == rotated->ca_bundle);
  // Once the old CA expired, it leaves the bundle.
  auto pruned = renew(*rotated, kNames, now + 3h + 10min, kShort);
  REQUIRE(pruned);
  CHECK(pruned->ca.cert_pem == rotated->ca.cert_pem);
  CHECK(pruned->ca_bundle == rotated->ca.cert_pem);
}

TEST_CASE("unreadable material is replaced, not trusted") {
  fed::webhook::WebhookTls broken{{"garbage", "garbage"}, {"garbage", "garbage"}, "garbage"};
  auto tls = renew(broken, kNames, std::chrono::system_clock::now(), kShort);
  REQUIRE(tls);
  CHECK(fed::pki::signed_by(tls->serving.cert_pem, tls->ca.cert_pem));
  CHECK(tls->ca_bundle == tls->ca.cert_pem);
}
