#include "shared/kube/kubeconfig_resolve.hpp"

#include <doctest/doctest.h>

#include <string>

#include "shared/kube/kubeconfig_writer.hpp"
#include "shared/kube/token_credentials.hpp"
#include "shared/util/base64.hpp"
#include "tests/unit/shared/kube/kube_test_support.hpp"

namespace {

using fed::ErrorCode;
using fed::kube::Kubeconfig;
using fed::kube::LoadOptions;
using fed::kube::parse_kubeconfig;
using fed::kube::resolve;
using fed::kube::RestConfig;
using fed::kube::testing::kCaPem;
using fed::kube::testing::kCertPem;
using fed::kube::testing::kKeyPem;
using fed::kube::testing::ScopedEnv;
using fed::kube::testing::TempDir;
using fed::kube::testing::write_file;
using fed::util::base64_encode;

Kubeconfig parse(const std::string& yaml, const std::string& origin = "/k/config") {
  auto r = parse_kubeconfig(yaml, origin);
  REQUIRE_MESSAGE(r.has_value(), r.error().message());
  return std::move(r).value();
}

LoadOptions with_context(const std::string& context, const std::string& ns = "") {
  return LoadOptions{"", context, ns};
}

std::string resolve_error(const Kubeconfig& k, const LoadOptions& o = {}) {
  auto r = resolve(k, o);
  REQUIRE_FALSE(r.has_value());
  return r.error().message();
}

const std::string kTwoContexts = R"(clusters:
- name: prod
  cluster: {server: "https://prod.example:6443/", certificate-authority-data: )" +
                                 base64_encode(kCaPem) + R"(}
- name: dev
  cluster: {server: "https://dev.example", tls-server-name: api.dev, proxy-url: "http://127.0.0.1:3128"}
users:
- name: admin
  user: {token: admin-token}
current-context: prod
contexts:
- name: prod
  context: {cluster: prod, user: admin, namespace: ops}
- name: dev
  context: {cluster: dev, user: admin}
)";

}  // namespace

TEST_CASE("resolve uses current-context, --context overrides it, -n overrides the namespace") {
  const Kubeconfig k = parse(kTwoContexts);

  auto prod = resolve(k, {});
  REQUIRE(prod.has_value());
  CHECK(prod->server == "https://prod.example:6443");  // trailing slash dropped
  CHECK(prod->ca_pem == kCaPem);
  CHECK(prod->context_name == "prod");
  CHECK(prod->cluster_name == "prod");
  CHECK(prod->default_namespace == "ops");
  REQUIRE(prod->credentials);
  CHECK(*prod->credentials->token() == "admin-token");
  CHECK_FALSE(prod->client_certificate.has_value());
  CHECK_FALSE(prod->certificate_source);

  auto dev = resolve(k, with_context("dev"));
  REQUIRE(dev.has_value());
  CHECK(dev->server == "https://dev.example");
  CHECK(dev->tls_server_name == "api.dev");
  CHECK(dev->proxy_url == "http://127.0.0.1:3128");
  CHECK(dev->ca_pem.empty());
  CHECK(dev->default_namespace == "default");

  auto overridden = resolve(k, with_context("dev", "team-a"));
  REQUIRE(overridden.has_value());
  CHECK(overridden->default_namespace == "team-a");
  CHECK(resolve(k, LoadOptions{"", "", "team-b"})->default_namespace == "team-b");
}

TEST_CASE("a server without a scheme gets https when TLS is configured, like kubectl") {
  CHECK(
      resolve(parse("clusters:\n- name: c\n  cluster: {server: 'h:6443', insecure-skip-tls-verify: "
                    "true}\ncontexts:\n- name: c\n  context: {cluster: c}\ncurrent-context: c\n"),
              {})
          ->server == "https://h:6443");
  CHECK(resolve(parse("clusters:\n- name: c\n  cluster: {server: 'h:8080'}\ncontexts:\n- name: c\n"
                      "  context: {cluster: c}\ncurrent-context: c\n"),
                {})
            ->server == "http://h:8080");
  CHECK(resolve_error(parse("clusters:\n- name: c\n  cluster: {server: 'ftp://h'}\ncontexts:\n- "
                            "name: c\n  context: {cluster: c}\ncurrent-context: c\n")) ==
        "the server \"ftp://h\" of cluster \"c\" in /k/config is not an http(s) URL; set server: "
        "https://HOST:PORT");
}

TEST_CASE("tokenFile is re-read on every token() call, so a rotated token is used at once") {
  TempDir dir;
  write_file(dir / "token", "first-token\n");
  write_file(dir / "config", R"(clusters:
- name: c
  cluster: {server: https://c}
users:
- name: u
  user: {tokenFile: token}
- name: with-fallback
  user: {tokenFile: gone, token: static-token}
- name: broken
  user: {tokenFile: gone}
contexts:
- name: c
  context: {cluster: c, user: u}
- name: fallback
  context: {cluster: c, user: with-fallback}
- name: broken
  context: {cluster: c, user: broken}
current-context: c
)");
  auto k = fed::kube::load_kubeconfig(LoadOptions{(dir / "config").string(), "", ""});
  REQUIRE(k.has_value());
  auto r = resolve(*k, {});
  REQUIRE(r.has_value());
  REQUIRE(r->credentials);
  CHECK(*r->credentials->token() == "first-token");
  write_file(dir / "token", "  second-token \n");
  CHECK(*r->credentials->token() == "second-token");
  write_file(dir / "token", "");
  auto empty = r->credentials->token();
  REQUIRE_FALSE(empty.has_value());
  CHECK(empty.error().message() == "the token file " + (dir / "token").string() +
                                       " of user \"u\" in " + (dir / "config").string() +
                                       " (tokenFile " + (dir / "token").string() +
                                       ") is empty; write the bearer token into it");
  std::filesystem::remove(dir / "token");
  auto gone = r->credentials->token();
  REQUIRE_FALSE(gone.has_value());
  CHECK(gone.error().code() == ErrorCode::Invalid);
  CHECK(gone.error().message().find("cannot read the token file of user \"u\"") == 0);

  // kubectl: a token beside tokenFile is the fallback while the file is unreadable.
  auto fallback = resolve(*k, with_context("fallback"));
  REQUIRE(fallback.has_value());
  CHECK(*fallback->credentials->token() == "static-token");

  // With nothing to fall back on, resolve fails at once rather than on the first request.
  auto broken = resolve(*k, with_context("broken"));
  REQUIRE_FALSE(broken.has_value());
  CHECK(broken.error().code() == ErrorCode::Invalid);
  CHECK(broken.error().message() ==
        "cannot read the token file of user \"broken\" in " + (dir / "config").string() +
            " (tokenFile " + (dir / "gone").string() + ") (" + (dir / "gone").string() +
            ": No such file or directory); fix the path or the file's permissions");
}

TEST_CASE("client certificates come from *-data or from files relative to the kubeconfig") {
  TempDir dir;
  write_file(dir / "pki/client.crt", kCertPem);
  write_file(dir / "pki/client.key", kKeyPem);
  write_file(dir / "pki/ca.crt", kCaPem);
  write_file(dir / "config", R"(clusters:
- name: c
  cluster: {server: https://c, certificate-authority: pki/ca.crt}
users:
- name: files
  user: {client-certificate: pki/client.crt, client-key: pki/client.key}
- name: data
  user:
    client-certificate-data: )" + base64_encode(kCertPem) +
                                 R"(
    client-key-data: )" + base64_encode(kKeyPem) +
                                 R"(
    client-certificate: pki/missing.crt
- name: basic
  user: {username: alice, password: s3cret}
contexts:
- name: files
  context: {cluster: c, user: files}
- name: data
  context: {cluster: c, user: data}
- name: basic
  context: {cluster: c, user: basic}
)");
  auto k = fed::kube::load_kubeconfig(LoadOptions{(dir / "config").string(), "", ""});
  REQUIRE(k.has_value());

  auto files = resolve(*k, with_context("files"));
  REQUIRE(files.has_value());
  CHECK(files->ca_pem == kCaPem);
  REQUIRE(files->client_certificate.has_value());
  CHECK(files->client_certificate->cert_pem == kCertPem);
  CHECK(files->client_certificate->key_pem == kKeyPem);
  CHECK_FALSE(files->credentials);

  // Inline data wins over a file (which is then not even read).
  auto data = resolve(*k, with_context("data"));
  REQUIRE(data.has_value());
  CHECK(data->client_certificate->cert_pem == kCertPem);
  CHECK(data->client_certificate->key_pem == kKeyPem);

  auto basic = resolve(*k, with_context("basic"));
  REQUIRE(basic.has_value());
  CHECK(basic->username == "alice");
  CHECK(basic->password == "s3cret");
  CHECK_FALSE(basic->credentials);
}

TEST_CASE("a context naming something missing lists what exists") {
  const Kubeconfig k = parse(kTwoContexts + R"(- name: no-cluster
  context: {user: admin}
- name: ghost-cluster
  context: {cluster: ghost, user: admin}
- name: ghost-user
  context: {cluster: dev, user: ghost}
- name: anonymous
  context: {cluster: dev}
)");
  auto missing = resolve(k, with_context("x"));
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code() == ErrorCode::NotFound);
  CHECK(missing.error().message() ==
        "context \"x\" not found in kubeconfig (contexts: anonymous, dev, ghost-cluster, "
        "ghost-user, no-cluster, prod); pass --context with one of those");
  CHECK(resolve_error(k, with_context("no-cluster")) ==
        "context \"no-cluster\" in /k/config names no cluster; set its cluster");
  CHECK(resolve_error(k, with_context("ghost-cluster")) ==
        "cluster \"ghost\" of context \"ghost-cluster\" not found in kubeconfig (clusters: dev, "
        "prod); fix the context in /k/config or add the cluster");
  auto ghost_user = resolve(k, with_context("ghost-user"));
  REQUIRE_FALSE(ghost_user.has_value());
  CHECK(ghost_user.error().code() == ErrorCode::NotFound);
  CHECK(ghost_user.error().message() ==
        "user \"ghost\" of context \"ghost-user\" not found in kubeconfig (users: admin); fix the "
        "context in /k/config or add the user");
  // A context without a user is anonymous, as in kubectl.
  auto anonymous = resolve(k, with_context("anonymous"));
  REQUIRE(anonymous.has_value());
  CHECK_FALSE(anonymous->credentials);

  Kubeconfig dangling = parse(kTwoContexts);
  dangling.current_context = "gone";
  CHECK(resolve_error(dangling) ==
        "current-context \"gone\" not found in kubeconfig (contexts: dev, prod); run `kubectl "
        "config use-context NAME` or pass --context");
  dangling.current_context.clear();
  CHECK(resolve_error(dangling) ==
        "no current-context is set in the kubeconfig (contexts: dev, prod); pass --context or run "
        "`kubectl config use-context NAME`");
  auto empty = resolve(Kubeconfig{}, {});
  REQUIRE_FALSE(empty.has_value());
  CHECK(empty.error().code() == ErrorCode::Invalid);
  CHECK(empty.error().message() ==
        "the kubeconfig (no file) defines no contexts; pass "
        "--kubeconfig with a kubeconfig or set KUBECONFIG");
}

TEST_CASE("unusable clusters and users are refused with the fix") {
  const auto single = [](const std::string& cluster, const std::string& user) {
    return parse("clusters:\n- name: c\n  cluster: " + cluster +
                 "\nusers:\n- name: u\n  user: " + user +
                 "\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                 "current-context: x\n");
  };
  const std::string ok_cluster = "{server: https://c}";
  CHECK(resolve_error(single("{}", "{}")) ==
        "cluster \"c\" in /k/config has no server; set server: https://HOST:PORT for it");
  CHECK(resolve_error(
            single("{server: https://c, certificate-authority: /nonexistent/ca.crt}", "{}")) ==
        "cannot read the certificate-authority file of cluster \"c\" in /k/config "
        "(/nonexistent/ca.crt: No such file or directory); fix the path or the file's "
        "permissions");
  auto ca_dir = resolve(single("{server: https://c, certificate-authority: /tmp}", "{}"), {});
  REQUIRE_FALSE(ca_dir.has_value());
  CHECK(ca_dir.error().message() ==
        "cannot read the certificate-authority file of cluster \"c\" in /k/config (/tmp: Is a "
        "directory); fix the path or the file's permissions");
  CHECK(resolve_error(single("{server: https://c, certificate-authority-data: " +
                                 base64_encode("DER bytes, not PEM") + "}",
                             "{}")) ==
        "the certificate-authority of cluster \"c\" in /k/config is not PEM "
        "(certificate-authority-data has no -----BEGIN line); supply the PEM text (for *-data "
        "fields: base64 of the PEM file)");
  CHECK(resolve_error(single("{server: https://c, insecure-skip-tls-verify: true, "
                             "certificate-authority-data: " +
                                 base64_encode(kCaPem) + "}",
                             "{}")) ==
        "cluster \"c\" in /k/config sets both insecure-skip-tls-verify and a certificate "
        "authority; remove one of them");
  CHECK(resolve_error(
            single(ok_cluster, "{client-certificate-data: " + base64_encode(kCertPem) + "}")) ==
        "user \"u\" in /k/config has a client certificate but no client key; set client-key or "
        "client-key-data");
  CHECK(resolve_error(single(ok_cluster, "{client-key-data: " + base64_encode(kKeyPem) + "}")) ==
        "user \"u\" in /k/config has a client key but no client certificate; set "
        "client-certificate or client-certificate-data");
  CHECK(resolve_error(
            single(ok_cluster, "{client-certificate: /nonexistent/c.crt, client-key-data: " +
                                   base64_encode(kKeyPem) + "}")) ==
        "cannot read the client-certificate file of user \"u\" in /k/config (/nonexistent/c.crt: "
        "No such file or directory); fix the path or the file's permissions");
  CHECK(resolve_error(single(ok_cluster, "{token: t, username: a, password: b}")) ==
        "user \"u\" in /k/config has more than one authentication method (token and "
        "username/password); keep only one");
  CHECK(resolve_error(single(ok_cluster, "{auth-provider: {name: gcp}}")) ==
        "user \"u\" in /k/config uses auth-provider \"gcp\", which kubectl-fed does not support "
        "(kubectl dropped it too); switch the user to an exec plugin such as kubelogin or "
        "gke-gcloud-auth-plugin");
  CHECK(resolve_error(single(ok_cluster, "{token: t, as: bob}")) ==
        "user \"u\" in /k/config sets \"as\" (impersonation), which kubectl-fed does not support; "
        "remove it or use a user with that identity's own credentials");
}

TEST_CASE("rest_config_from_flags: KUBECONFIG, nothing found, and the in-cluster fallback") {
  TempDir dir;
  write_file(dir / "config", kTwoContexts);
  ScopedEnv no_host("KUBERNETES_SERVICE_HOST", std::nullopt);
  ScopedEnv no_port("KUBERNETES_SERVICE_PORT", std::nullopt);
  ScopedEnv home("HOME", (dir / "home").string());

  SUBCASE("from KUBECONFIG") {
    ScopedEnv env("KUBECONFIG", (dir / "config").string());
    auto r = fed::kube::rest_config_from_flags(LoadOptions{"", "dev", "n1"});
    REQUIRE(r.has_value());
    CHECK(r->server == "https://dev.example");
    CHECK(r->default_namespace == "n1");
  }
  SUBCASE("nothing to read and not in a cluster") {
    ScopedEnv env("KUBECONFIG", std::nullopt);
    auto r = fed::kube::rest_config_from_flags(LoadOptions{});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message() ==
          "no kubeconfig found (looked at: " + (dir / "home/.kube/config").string() +
              "); pass --kubeconfig, set KUBECONFIG, or run inside a cluster");
  }
  SUBCASE("in a pod without a kubeconfig, the ServiceAccount is used") {
    ScopedEnv env("KUBECONFIG", std::nullopt);
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
    write_file(dir / "sa/token", "sa-token\n");
    write_file(dir / "sa/namespace", "fed-system");
    auto r = fed::kube::rest_config_from_flags(LoadOptions{}, dir / "sa");
    REQUIRE(r.has_value());
    CHECK(r->server == "https://10.96.0.1:443");
    CHECK(r->default_namespace == "fed-system");
    CHECK(*r->credentials->token() == "sa-token");
    auto with_ns = fed::kube::rest_config_from_flags(LoadOptions{"", "", "other"}, dir / "sa");
    REQUIRE(with_ns.has_value());
    CHECK(with_ns->default_namespace == "other");

    // A kubeconfig, when there is one, still wins over the pod's ServiceAccount.
    ScopedEnv list("KUBECONFIG", (dir / "config").string());
    auto kube = fed::kube::rest_config_from_flags(LoadOptions{}, dir / "sa");
    REQUIRE(kube.has_value());
    CHECK(kube->server == "https://prod.example:6443");
  }
  SUBCASE("an explicit --kubeconfig that is missing is an error even in a pod") {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
    auto r = fed::kube::rest_config_from_flags(LoadOptions{(dir / "none").string(), "", ""});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::Invalid);
  }
}
