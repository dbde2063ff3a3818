#include "shared/kube/in_cluster.hpp"

#include <doctest/doctest.h>

#include <filesystem>

#include "tests/unit/shared/kube/kube_test_support.hpp"

namespace {

using fed::ErrorCode;
using fed::kube::in_cluster_config;
using fed::kube::testing::kCaPem;
using fed::kube::testing::ScopedEnv;
using fed::kube::testing::TempDir;
using fed::kube::testing::write_file;

}  // namespace

TEST_CASE("in-cluster config reads the ServiceAccount directory and the service env") {
  TempDir sa;
  write_file(sa / "token", "projected-1\n");
  write_file(sa / "ca.crt", kCaPem);
  write_file(sa / "namespace", "fed-system\n");
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  CHECK(fed::kube::in_cluster_environment());

  auto r = in_cluster_config(sa.path());
  REQUIRE_MESSAGE(r.has_value(), r.error().message());
  CHECK(r->server == "https://10.96.0.1:443");
  CHECK(r->ca_pem == kCaPem);
  CHECK(r->default_namespace == "fed-system");
  CHECK(r->cluster_name == "in-cluster");
  REQUIRE(r->credentials);
  CHECK(*r->credentials->token() == "projected-1");
  // The kubelet rotates projected tokens in place; the next request must see the new one.
  write_file(sa / "token", "projected-2");
  CHECK(*r->credentials->token() == "projected-2");
}

TEST_CASE("in-cluster config: IPv6 hosts are bracketed, CA and namespace are optional") {
  TempDir sa;
  write_file(sa / "token", "t");
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "fd00:10:96::1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "6443");
  auto r = in_cluster_config(sa.path());
  REQUIRE_MESSAGE(r.has_value(), r.error().message());
  CHECK(r->server == "https://[fd00:10:96::1]:6443");
  CHECK(r->ca_pem.empty());  // system trust store, as client-go does
  CHECK(r->default_namespace == "default");
}

TEST_CASE("in-cluster config errors say what is missing") {
  TempDir sa;
  SUBCASE("no service environment") {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", std::nullopt);
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
    CHECK_FALSE(fed::kube::in_cluster_environment());
    auto r = in_cluster_config(sa.path());
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::NotFound);
    CHECK(r.error().message() ==
          "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not "
          "both set; pass --kubeconfig or set KUBECONFIG instead");
  }
  SUBCASE("no token") {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
    auto r = in_cluster_config(sa.path());
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::NotFound);
    CHECK(r.error().message() ==
          "in-cluster config: cannot read the ServiceAccount token (" + (sa / "token").string() +
              ": No such file or directory); mount one (automountServiceAccountToken: true) or "
              "use a kubeconfig");
  }
}
