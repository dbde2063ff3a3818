#include "shared/kube/exec_credential.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "shared/kube/kubeconfig_resolve.hpp"
#include "shared/util/base64.hpp"
#include "shared/util/rfc3339.hpp"
#include "tests/unit/shared/kube/kube_test_support.hpp"

namespace {

using fed::ErrorCode;
using fed::kube::ExecClusterInfo;
using fed::kube::ExecConfig;
using fed::kube::ExecCredentialSource;
using fed::kube::ExecOptions;
using fed::kube::InteractiveMode;
using fed::kube::kExecApiV1;
using fed::kube::kExecApiV1Beta1;
using fed::kube::parse_exec_credential;
using fed::kube::testing::count_lines;
using fed::kube::testing::exec_plugin_path;
using fed::kube::testing::read_text;
using fed::kube::testing::TempDir;
using fed::kube::testing::write_file;
using namespace std::chrono_literals;

// An exec config running the fixture, counting runs in dir/count.
ExecConfig fixture_config(const TempDir& dir, std::string_view api_version,
                          std::vector<fed::kube::ExecEnvVar> extra_env = {}) {
  ExecConfig config;
  config.command = exec_plugin_path();
  config.api_version = std::string(api_version);
  config.interactive_mode = InteractiveMode::Never;
  config.env = {{"FIXTURE_COUNT_FILE", (dir / "count").string()}};
  config.env.insert(config.env.end(), extra_env.begin(), extra_env.end());
  return config;
}

std::shared_ptr<ExecCredentialSource> make_source(ExecConfig config, ExecOptions options = {},
                                                  ExecClusterInfo cluster = {}) {
  auto r = ExecCredentialSource::create(std::move(config), std::move(cluster),
                                        "user \"u\" in /k/cfg", std::move(options));
  REQUIRE_MESSAGE(r.has_value(), r.error().message());
  return std::move(r).value();
}

ExecOptions tty(bool is_terminal) {
  ExecOptions o;
  o.stdin_is_terminal = [is_terminal] { return is_terminal; };
  return o;
}

// A kubeconfig whose context "x" uses the fixture plugin with the given exec settings.
std::string exec_kubeconfig(const std::string& exec_yaml) {
  return "clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\n"
         "    tls-server-name: api.test\n    proxy-url: http://127.0.0.1:3128\n"
         "    certificate-authority-data: " +
         fed::util::base64_encode(fed::kube::testing::kCaPem) +
         "\nusers:\n- name: u\n  user:\n    exec:\n" + exec_yaml +
         "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n";
}

}  // namespace

TEST_CASE("parse_exec_credential reads token, certificate and expiry, and rejects bad output") {
  auto token = parse_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
          "status":{"token":"t","expirationTimestamp":"2030-01-02T03:04:05Z"}})",
      kExecApiV1);
  REQUIRE(token.has_value());
  CHECK(token->token == "t");
  CHECK(token->certificate.cert_pem.empty());
  REQUIRE(token->expiry.has_value());
  CHECK(fed::util::format_rfc3339(*token->expiry) == "2030-01-02T03:04:05Z");

  auto cert = parse_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
          "status":{"clientCertificateData":"C","clientKeyData":"K"}})",
      kExecApiV1Beta1);
  REQUIRE(cert.has_value());
  CHECK(cert->certificate.cert_pem == "C");
  CHECK(cert->certificate.key_pem == "K");
  CHECK_FALSE(cert->expiry.has_value());

  const auto err = [](std::string_view json) {
    auto r = parse_exec_credential(json, kExecApiV1);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::Invalid);
    return r.error().message();
  };
  CHECK(err("token=abc") ==
        "its output is not a JSON object; it must print an ExecCredential on stdout");
  CHECK(err(R"({"kind":"Secret"})") == "it printed kind \"Secret\", expected ExecCredential");
  CHECK(err(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1"})") ==
        "it answered in apiVersion \"client.authentication.k8s.io/v1beta1\" but exec.apiVersion "
        "is \"client.authentication.k8s.io/v1\"; set exec.apiVersion to what the plugin speaks");
  const std::string head =
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1")";
  CHECK(err(head + "}") == "its ExecCredential has no status object");
  CHECK(err(head + R"(,"status":{}})") ==
        "it returned neither status.token nor a client certificate and key");
  CHECK(err(head + R"(,"status":{"token":5}})") == "status.token is not a string");
  CHECK(err(head + R"(,"status":{"clientCertificateData":"C"}})") ==
        "it returned only one of clientCertificateData and clientKeyData; it must return both or "
        "neither");
  CHECK(err(head + R"(,"status":{"token":"t","expirationTimestamp":"tomorrow"}})") ==
        "status.expirationTimestamp: invalid RFC 3339 timestamp \"tomorrow\": bad year (expected "
        "e.g. 2024-05-01T12:00:00Z)");
}

TEST_CASE("KUBERNETES_EXEC_INFO carries spec.interactive and, on request, spec.cluster") {
  ExecConfig config;
  config.api_version = std::string(kExecApiV1);
  const ExecClusterInfo cluster{"https://c:6443", "PEM", true, "api.c", "socks5://p:1080"};
  auto plain = nlohmann::json::parse(fed::kube::exec_info_json(config, cluster, false));
  CHECK(plain == nlohmann::json::parse(R"({"apiVersion":"client.authentication.k8s.io/v1",
      "kind":"ExecCredential","spec":{"interactive":false}})"));
  config.provide_cluster_info = true;
  auto full = nlohmann::json::parse(fed::kube::exec_info_json(config, cluster, true));
  CHECK(full == nlohmann::json::parse(R"({"apiVersion":"client.authentication.k8s.io/v1",
      "kind":"ExecCredential","spec":{"interactive":true,"cluster":{"server":"https://c:6443",
      "certificate-authority-data":"UEVN","insecure-skip-tls-verify":true,
      "tls-server-name":"api.c","proxy-url":"socks5://p:1080"}}})"));
}

TEST_CASE(
    "exec plugin v1 from a kubeconfig: cached until expiry, re-run after it and after "
    "invalidate()") {
  TempDir dir;
  write_file(dir / "config",
             exec_kubeconfig("      apiVersion: client.authentication.k8s.io/v1\n"
                             "      command: " +
                             exec_plugin_path() +
                             "\n"
                             "      args: [--flag, two words]\n"
                             "      interactiveMode: Never\n"
                             "      provideClusterInfo: true\n"
                             "      env:\n"
                             "      - {name: FIXTURE_COUNT_FILE, value: " +
                             (dir / "count").string() +
                             "}\n"
                             "      - {name: FIXTURE_INFO_FILE, value: " +
                             (dir / "info").string() +
                             "}\n"
                             "      - {name: FIXTURE_ARGS_FILE, value: " +
                             (dir / "args").string() +
                             "}\n"
                             "      - {name: FIXTURE_EXPIRY_SECONDS, value: '2'}\n"));
  auto config = fed::kube::rest_config_from_flags({(dir / "config").string(), "", ""});
  REQUIRE_MESSAGE(config.has_value(), config.error().message());
  REQUIRE(config->credentials);
  REQUIRE(config->certificate_source);
  CHECK(count_lines(dir / "count") == 0);  // nothing runs until a credential is needed

  CHECK(*config->credentials->token() == "token-1");
  CHECK(*config->credentials->token() == "token-1");
  CHECK(config->certificate_source->certificate()->cert_pem.empty());  // token-only plugin
  CHECK(count_lines(dir / "count") == 1);

  // The plugin saw its args, its env and, with provideClusterInfo, the cluster.
  CHECK(read_text(dir / "args") == "--flag\ntwo words\n");
  const auto info = nlohmann::json::parse(read_text(dir / "info"));
  CHECK(info["apiVersion"] == "client.authentication.k8s.io/v1");
  CHECK(info["kind"] == "ExecCredential");
  CHECK(info["spec"]["interactive"] == false);  // interactiveMode: Never
  CHECK(info["spec"]["cluster"]["server"] == "https://127.0.0.1:6443");
  CHECK(info["spec"]["cluster"]["tls-server-name"] == "api.test");
  CHECK(info["spec"]["cluster"]["proxy-url"] == "http://127.0.0.1:3128");
  CHECK(info["spec"]["cluster"]["certificate-authority-data"] ==
        fed::util::base64_encode(fed::kube::testing::kCaPem));
  CHECK_FALSE(info["spec"]["cluster"].contains("insecure-skip-tls-verify"));

  std::this_thread::sleep_for(2100ms);  // the expiry was at most 2 s after the first run
  CHECK(*config->credentials->token() == "token-2");
  CHECK(count_lines(dir / "count") == 2);

  config->credentials->invalidate();  // what the REST client does after a 401
  CHECK(*config->credentials->token() == "token-3");
  CHECK(*config->credentials->token() == "token-3");
  CHECK(count_lines(dir / "count") == 3);
}

TEST_CASE("exec plugin v1beta1 without expiry is cached for the process lifetime") {
  TempDir dir;
  auto source = make_source(
      fixture_config(dir, kExecApiV1Beta1, {{"FIXTURE_INFO_FILE", (dir / "info").string()}}));
  for (int i = 0; i < 3; ++i) CHECK(*source->token() == "token-1");
  CHECK(count_lines(dir / "count") == 1);
  CHECK(nlohmann::json::parse(read_text(dir / "info"))["apiVersion"] ==
        "client.authentication.k8s.io/v1beta1");
  // Without provideClusterInfo there is no spec.cluster.
  CHECK_FALSE(nlohmann::json::parse(read_text(dir / "info"))["spec"].contains("cluster"));
  source->invalidate();
  CHECK(*source->token() == "token-2");
}

TEST_CASE("concurrent callers share one plugin run") {
  TempDir dir;
  auto source = make_source(fixture_config(dir, kExecApiV1, {{"FIXTURE_EXPIRY_SECONDS", "600"}}));
  std::vector<std::thread> threads;
  std::vector<std::string> tokens(8);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    threads.emplace_back([&, i] { tokens[i] = source->token().value_or(std::string("error")); });
  }
  for (auto& t : threads) t.join();
  for (const auto& t : tokens) CHECK(t == "token-1");
  CHECK(count_lines(dir / "count") == 1);
}

TEST_CASE("an exec plugin may return a client certificate instead of a token") {
  TempDir dir;
  auto source = make_source(fixture_config(dir, kExecApiV1, {{"FIXTURE_MODE", "cert"}}));
  auto cert = source->certificate();
  REQUIRE(cert.has_value());
  CHECK(cert->cert_pem == "-----BEGIN CERTIFICATE-----\nZml4dHVyZQ==\n-----END CERTIFICATE-----\n");
  CHECK(cert->key_pem == "-----BEGIN PRIVATE KEY-----\nZml4dHVyZQ==\n-----END PRIVATE KEY-----\n");
  CHECK(*source->token() == "");
  CHECK(count_lines(dir / "count") == 1);
}

TEST_CASE("interactiveMode decides spec.interactive; Always without a terminal is an error") {
  TempDir dir;
  auto config = fixture_config(dir, kExecApiV1, {{"FIXTURE_INFO_FILE", (dir / "info").string()}});
  const auto interactive_seen = [&](InteractiveMode mode, bool is_tty) {
    auto c = config;
    c.interactive_mode = mode;
    auto token = make_source(c, tty(is_tty))->token();
    REQUIRE_MESSAGE(token.has_value(), token.error().message());
    return nlohmann::json::parse(read_text(dir / "info"))["spec"]["interactive"].get<bool>();
  };
  CHECK_FALSE(interactive_seen(InteractiveMode::Never, true));
  CHECK_FALSE(interactive_seen(InteractiveMode::IfAvailable, false));
  CHECK(interactive_seen(InteractiveMode::IfAvailable, true));
  CHECK(interactive_seen(InteractiveMode::Always, true));

  config.interactive_mode = InteractiveMode::Always;
  auto refused = make_source(config, tty(false))->token();
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code() == ErrorCode::Invalid);
  CHECK(refused.error().message() ==
        "exec plugin \"" + exec_plugin_path() +
            "\" of user \"u\" in /k/cfg needs a terminal (interactiveMode: Always) but standard "
            "input is not one; run this in a terminal, or log in with the plugin first and set "
            "interactiveMode: IfAvailable");
}

TEST_CASE("plugin failures name the plugin and the fix, and are not cached") {
  TempDir dir;
  SUBCASE("non-zero exit") {
    auto source = make_source(fixture_config(dir, kExecApiV1, {{"FIXTURE_MODE", "fail"}}));
    for (int i = 0; i < 2; ++i) {
      auto r = source->token();
      REQUIRE_FALSE(r.has_value());
      CHECK(r.error().code() == ErrorCode::Permission);
      CHECK(r.error().message() ==
            "exec plugin \"" + exec_plugin_path() +
                "\" of user \"u\" in /k/cfg exited with code 3; its stderr above says why: fix "
                "its login or configuration, or exec in the kubeconfig");
    }
    CHECK(count_lines(dir / "count") == 2);
  }
  SUBCASE("timeout kills the plugin and whatever it started") {
    ExecOptions options;
    options.timeout = 300ms;
    auto source =
        make_source(fixture_config(dir, kExecApiV1, {{"FIXTURE_MODE", "sleep"}}), options);
    const auto start = std::chrono::steady_clock::now();
    auto r = source->token();
    const auto took = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::Unavailable);
    CHECK(r.error().message() ==
          "exec plugin \"" + exec_plugin_path() +
              "\" of user \"u\" in /k/cfg did not finish within 300ms and was killed; run it by "
              "hand to see where it hangs (e.g. waiting for a login)");
    CHECK(took < 5s);  // the fixture's `sleep 30` did not keep us waiting
  }
  SUBCASE("output that is not an ExecCredential") {
    auto source = make_source(fixture_config(dir, kExecApiV1, {{"FIXTURE_MODE", "garbage"}}));
    auto r = source->token();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message() ==
          "exec plugin \"" + exec_plugin_path() +
              "\" of user \"u\" in /k/cfg: its output is not a JSON object; it must print an "
              "ExecCredential on stdout");
  }
  SUBCASE("missing command, with and without installHint") {
    ExecConfig config = fixture_config(dir, kExecApiV1);
    config.command = "fed-no-such-credential-plugin";
    auto r = make_source(config)->token();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message() ==
          "exec plugin of user \"u\" in /k/cfg: cannot run \"fed-no-such-credential-plugin\": "
          "command not found on PATH; install the plugin or fix exec.command in the kubeconfig");
    config.install_hint = "Install it with: apt install fed-plugin";
    auto hinted = make_source(config)->token();
    REQUIRE_FALSE(hinted.has_value());
    CHECK(hinted.error().message() ==
          "exec plugin of user \"u\" in /k/cfg: cannot run \"fed-no-such-credential-plugin\": "
          "command not found on PATH; Install it with: apt install fed-plugin");
  }
}

TEST_CASE("exec settings kubectl would refuse are refused when the context is resolved") {
  const auto err = [](const std::string& exec_yaml) {
    auto k = fed::kube::parse_kubeconfig(exec_kubeconfig(exec_yaml), "/k/cfg");
    REQUIRE_MESSAGE(k.has_value(), k.error().message());
    auto r = fed::kube::resolve(*k, {});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::Invalid);
    return r.error().message();
  };
  CHECK(err("      apiVersion: client.authentication.k8s.io/v1\n      command: x\n") ==
        "user \"u\" in /k/cfg: exec.interactiveMode must be set for "
        "client.authentication.k8s.io/v1 plugins; add interactiveMode: Never (or IfAvailable, "
        "Always)");
  CHECK(err("      apiVersion: client.authentication.k8s.io/v1alpha1\n      command: x\n") ==
        "user \"u\" in /k/cfg: exec.apiVersion \"client.authentication.k8s.io/v1alpha1\" is not "
        "supported; use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1");
  CHECK(err("      command: x\n") ==
        "user \"u\" in /k/cfg: exec.apiVersion is not set; set it to "
        "client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1");
  CHECK(err("      apiVersion: client.authentication.k8s.io/v1beta1\n") ==
        "user \"u\" in /k/cfg: exec.command is empty; set it to the credential plugin to run");
}

TEST_CASE("a static client certificate beside an exec plugin is kept; the plugin gives the token") {
  TempDir dir;
  const std::string yaml = exec_kubeconfig(
      "      apiVersion: client.authentication.k8s.io/v1beta1\n"
      "      command: " +
      exec_plugin_path() +
      "\n"
      "      env: [{name: FIXTURE_COUNT_FILE, value: " +
      (dir / "count").string() + "}]\n" +
      "    client-certificate-data: " + fed::util::base64_encode(fed::kube::testing::kCertPem) +
      "\n    client-key-data: " + fed::util::base64_encode(fed::kube::testing::kKeyPem) + "\n");
  auto k = fed::kube::parse_kubeconfig(yaml, "/k/cfg");
  REQUIRE_MESSAGE(k.has_value(), k.error().message());
  auto r = fed::kube::resolve(*k, {});
  REQUIRE_MESSAGE(r.has_value(), r.error().message());
  REQUIRE(r->client_certificate.has_value());
  CHECK(r->client_certificate->cert_pem == fed::kube::testing::kCertPem);
  CHECK_FALSE(r->certificate_source);
  REQUIRE(r->credentials);
  CHECK(*r->credentials->token() == "token-1");
}

TEST_CASE("the context's exec plugin is killed after LoadOptions::exec_timeout") {
  TempDir dir;
  const std::string yaml = exec_kubeconfig(
      "      apiVersion: client.authentication.k8s.io/v1\n"
      "      interactiveMode: Never\n"
      "      command: " +
      exec_plugin_path() +
      "\n"
      "      env: [{name: FIXTURE_COUNT_FILE, value: " +
      (dir / "count").string() + "}, {name: FIXTURE_MODE, value: sleep}]\n");
  auto k = fed::kube::parse_kubeconfig(yaml, "/k/cfg");
  REQUIRE_MESSAGE(k.has_value(), k.error().message());
  fed::kube::LoadOptions load;
  load.exec_timeout = 250ms;  // kubectl-fed sets it from --request-timeout
  auto r = fed::kube::resolve(*k, load);
  REQUIRE_MESSAGE(r.has_value(), r.error().message());
  REQUIRE(r->credentials);
  const auto start = std::chrono::steady_clock::now();
  auto token = r->credentials->token();
  REQUIRE_FALSE(token.has_value());
  CHECK(token.error().message().find("did not finish within 250ms and was killed") !=
        std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < 5s);  // not the plugin's `sleep 30`
}
