#include "shared/kube/kubeconfig.hpp"

#include <doctest/doctest.h>

#include <string>

#include "shared/kube/kubeconfig_writer.hpp"
#include "tests/unit/shared/kube/kube_test_support.hpp"

namespace {

using fed::ErrorCode;
using fed::kube::InteractiveMode;
using fed::kube::Kubeconfig;
using fed::kube::load_kubeconfig;
using fed::kube::LoadOptions;
using fed::kube::parse_kubeconfig;
using fed::kube::testing::ScopedEnv;
using fed::kube::testing::TempDir;
using fed::kube::testing::write_file;

// One cluster, user and context named `name`, the cluster's server `server`.
std::string one_context(const std::string& name, const std::string& server,
                        const std::string& current = "") {
  std::string y = "apiVersion: v1\nkind: Config\n";
  y += "clusters:\n- name: " + name + "\n  cluster:\n    server: " + server + "\n";
  y += "users:\n- name: " + name + "\n  user:\n    token: tok-" + name + "\n";
  y += "contexts:\n- name: " + name + "\n  context:\n    cluster: " + name + "\n    user: " + name +
       "\n";
  if (!current.empty()) y += "current-context: " + current + "\n";
  return y;
}

std::string error_of(const fed::Result<Kubeconfig>& r) {
  REQUIRE_FALSE(r.has_value());
  return r.error().message();
}

}  // namespace

TEST_CASE("parse_kubeconfig reads every cluster, user and context field") {
  const std::string yaml = R"(apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: Y2EtcGVt
    tls-server-name: api.prod
    proxy-url: socks5://127.0.0.1:1080
- name: lab
  cluster:
    server: https://lab:6443
    insecure-skip-tls-verify: true
    certificate-authority: ca/lab.crt
users:
- name: admin
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
    username: alice
    password: secret
- name: files
  user:
    client-certificate: /abs/c.crt
    client-key: k.key
    token: abc
    tokenFile: tokens/t
- name: sso
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: kubelogin
      args: [get-token, --server-id, "42"]
      env:
      - name: A
        value: "1"
      - name: B
        value: two
      provideClusterInfo: true
      installHint: apt install kubelogin
contexts:
- name: prod-admin
  context: {cluster: prod, user: admin, namespace: ops}
- name: lab
  context: {cluster: lab, user: sso}
current-context: lab
preferences: {}
)";
  auto r = parse_kubeconfig(yaml, "/etc/fed/config");
  REQUIRE(r.has_value());
  const Kubeconfig& k = *r;
  CHECK(k.files == std::vector<std::filesystem::path>{"/etc/fed/config"});
  CHECK(k.current_context == "lab");
  CHECK(k.context_names() == std::vector<std::string>{"lab", "prod-admin"});

  const auto& prod = k.clusters.at("prod");
  CHECK(prod.server == "https://10.0.0.1:6443");
  CHECK(prod.certificate_authority_data == "ca-pem");
  CHECK(prod.tls_server_name == "api.prod");
  CHECK(prod.proxy_url == "socks5://127.0.0.1:1080");
  CHECK_FALSE(prod.insecure_skip_tls_verify);
  CHECK(prod.origin == "/etc/fed/config");
  CHECK(k.clusters.at("lab").insecure_skip_tls_verify);
  CHECK(k.clusters.at("lab").certificate_authority == "/etc/fed/ca/lab.crt");

  const auto& admin = k.users.at("admin");
  CHECK(admin.client_certificate_data == "cert");
  CHECK(admin.client_key_data == "key");
  CHECK(admin.username == "alice");
  CHECK(admin.password == "secret");
  const auto& files = k.users.at("files");
  CHECK(files.client_certificate == "/abs/c.crt");
  CHECK(files.client_key == "/etc/fed/k.key");
  CHECK(files.token == "abc");
  CHECK(files.token_file == "/etc/fed/tokens/t");

  const auto& sso = k.users.at("sso");
  REQUIRE(sso.exec.has_value());
  CHECK(sso.exec->command == "kubelogin");  // a PATH name stays a PATH name
  CHECK(sso.exec->args == std::vector<std::string>{"get-token", "--server-id", "42"});
  REQUIRE(sso.exec->env.size() == 2);
  CHECK(sso.exec->env[0].name == "A");
  CHECK(sso.exec->env[0].value == "1");
  CHECK(sso.exec->env[1].value == "two");
  CHECK(sso.exec->provide_cluster_info);
  CHECK(sso.exec->install_hint == "apt install kubelogin");
  // v1beta1 defaults interactiveMode to IfAvailable, like kubectl.
  CHECK(sso.exec->interactive_mode == InteractiveMode::IfAvailable);

  const auto& ctx = k.contexts.at("prod-admin");
  CHECK(ctx.cluster == "prod");
  CHECK(ctx.user == "admin");
  CHECK(ctx.namespace_name == "ops");
  CHECK(k.contexts.at("lab").namespace_name.empty());
}

TEST_CASE("an empty file is an empty kubeconfig, and v1 exec without interactiveMode stays unset") {
  auto empty = parse_kubeconfig("", "/x/config");
  REQUIRE(empty.has_value());
  CHECK(empty->empty());
  auto r = parse_kubeconfig(R"(users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: ./bin/plugin}
)",
                            "/x/y/config");
  REQUIRE(r.has_value());
  CHECK_FALSE(r->users.at("u").exec->interactive_mode.has_value());
  // A command with a '/' is a path relative to the kubeconfig's directory.
  CHECK(r->users.at("u").exec->command == "/x/y/bin/plugin");
}

TEST_CASE("KUBECONFIG merge: the first file to define a name or current-context wins") {
  TempDir dir;
  // a sets no current-context; b sets it; c sets another one, too late to count.
  write_file(dir / "a", one_context("shared", "https://from-a") + R"(- name: only-a
  context: {cluster: shared, user: shared, namespace: a-ns}
)");
  write_file(dir / "c", one_context("shared", "https://from-c", "shared"));
  write_file(dir / "b", R"(clusters:
- name: shared
  cluster: {server: https://from-b}
- name: b-cluster
  cluster: {server: https://b-cluster}
users:
- name: shared
  user: {token: tok-b}
contexts:
- name: only-b
  context: {cluster: b-cluster, user: shared}
- name: only-a
  context: {cluster: b-cluster, user: shared, namespace: b-ns}
current-context: only-b
)");
  const std::string list = (dir / "a").string() + "::" + (dir / "missing").string() + ":" +
                           (dir / "b").string() + ":" + (dir / "c").string() + ":" +
                           (dir / "a").string();
  ScopedEnv env("KUBECONFIG", list);
  auto r = load_kubeconfig(LoadOptions{});
  REQUIRE(r.has_value());
  const Kubeconfig& k = *r;
  // Missing files are skipped, a repeated one is read once.
  CHECK(k.files == std::vector<std::filesystem::path>{dir / "a", dir / "b", dir / "c"});
  CHECK(k.clusters.at("shared").server == "https://from-a");
  CHECK(k.clusters.at("shared").origin == dir / "a");
  CHECK(k.clusters.at("b-cluster").server == "https://b-cluster");
  CHECK(k.users.at("shared").token == "tok-shared");
  CHECK(k.contexts.at("only-a").namespace_name == "a-ns");
  CHECK(k.contexts.at("only-b").cluster == "b-cluster");
  CHECK(k.current_context == "only-b");  // a set none, b was first, c came too late
  CHECK(k.context_names() == std::vector<std::string>{"only-a", "only-b", "shared"});
}

TEST_CASE("--kubeconfig replaces KUBECONFIG and must exist; the default is ~/.kube/config") {
  TempDir dir;
  write_file(dir / "explicit", one_context("e", "https://explicit", "e"));
  write_file(dir / "env", one_context("v", "https://env", "v"));
  ScopedEnv env("KUBECONFIG", (dir / "env").string());

  auto explicit_one = load_kubeconfig(LoadOptions{(dir / "explicit").string(), "", ""});
  REQUIRE(explicit_one.has_value());
  CHECK(explicit_one->contexts.count("e") == 1);
  CHECK(explicit_one->contexts.count("v") == 0);

  auto missing = load_kubeconfig(LoadOptions{(dir / "nope").string(), "", ""});
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code() == ErrorCode::Invalid);
  CHECK(missing.error().message() ==
        "kubeconfig " + (dir / "nope").string() + " does not exist; check the --kubeconfig path");

  auto a_dir = load_kubeconfig(LoadOptions{dir.path().string(), "", ""});
  REQUIRE_FALSE(a_dir.has_value());
  CHECK(a_dir.error().code() == ErrorCode::Invalid);
  CHECK(a_dir.error().message().find("cannot read kubeconfig " + dir.path().string()) == 0);

  SUBCASE("default file under HOME") {
    ScopedEnv no_list("KUBECONFIG", std::nullopt);
    ScopedEnv home("HOME", dir.path().string());
    write_file(dir / ".kube/config", one_context("home", "https://home", "home"));
    auto r = load_kubeconfig(LoadOptions{});
    REQUIRE(r.has_value());
    CHECK(r->current_context == "home");
    CHECK(r->files == std::vector<std::filesystem::path>{dir / ".kube/config"});
  }
  SUBCASE("a missing default file is an empty kubeconfig") {
    ScopedEnv no_list("KUBECONFIG", std::nullopt);
    ScopedEnv home("HOME", (dir / "nohome").string());
    auto r = load_kubeconfig(LoadOptions{});
    REQUIRE(r.has_value());
    CHECK(r->empty());
    CHECK(r->files.empty());
  }
}

TEST_CASE("relative paths resolve against the directory of the file that defined them") {
  TempDir dir;
  write_file(dir / "one/config", R"(clusters:
- name: c
  cluster: {server: https://c, certificate-authority: ca.crt}
users:
- name: u
  user: {client-certificate: ../certs/u.crt, client-key: /abs/u.key, tokenFile: t}
)");
  write_file(dir / "two/sub/config", R"(users:
- name: u2
  user:
    tokenFile: ./tok
    exec: {apiVersion: client.authentication.k8s.io/v1, command: ../plugin, interactiveMode: Never}
)");
  ScopedEnv env("KUBECONFIG",
                (dir / "one/config").string() + ":" + (dir / "two/sub/config").string());
  auto r = load_kubeconfig(LoadOptions{});
  REQUIRE(r.has_value());
  CHECK(r->clusters.at("c").certificate_authority == (dir / "one/ca.crt").string());
  CHECK(r->users.at("u").client_certificate == (dir / "certs/u.crt").string());
  CHECK(r->users.at("u").client_key == "/abs/u.key");
  CHECK(r->users.at("u").token_file == (dir / "one/t").string());
  CHECK(r->users.at("u2").token_file == (dir / "two/sub/tok").string());
  CHECK(r->users.at("u2").exec->command == (dir / "two/plugin").string());
  CHECK(r->users.at("u2").exec->interactive_mode == InteractiveMode::Never);
}

TEST_CASE("malformed kubeconfigs give one line naming the file, the line and the fix") {
  const auto err = [](const std::string& yaml) {
    return error_of(parse_kubeconfig(yaml, "/k/cfg"));
  };

  CHECK(err("clusters:\n- name: a\n  cluster: {server: [unclosed\n") ==
        "/k/cfg:4:1: malformed YAML: end of sequence flow not found; fix the syntax (check "
        "indentation and quoting)");
  CHECK(err("clusters:\n- name: a\n  cluster:\n    server: https://a\n  - oops\nusers: []\n") ==
        "/k/cfg:5:3: malformed YAML: end of map not found; fix the syntax (check indentation "
        "and quoting)");
  CHECK(err("- just\n- a list\n") ==
        "/k/cfg:1: not a kubeconfig (the top level must be a mapping with clusters, users and "
        "contexts); point --kubeconfig/KUBECONFIG at a kubeconfig");
  CHECK(err("clusters:\n  prod: {server: x}\n") ==
        "/k/cfg:2: clusters must be a list of {name: ..., cluster: {...}} entries; fix the "
        "kubeconfig");
  CHECK(err("clusters:\n- name: p\n  cluster:\n    certificate-authority-data: 'not base64!'\n") ==
        "/k/cfg:4: cluster \"p\".certificate-authority-data is not valid base64 (invalid base64 at "
        "byte 3 (character not in the base64 alphabet)); store the output of `base64 -w0 FILE` "
        "there");
  CHECK(err("users:\n- name: u\n  user: {client-key-data: abc}\n") ==
        "/k/cfg:3: user \"u\".client-key-data is not valid base64 (invalid base64 at byte 3 "
        "(truncated input or missing padding)); store the output of `base64 -w0 FILE` there");
  CHECK(err("contexts:\n- name: x\n  context: {}\n- name: x\n  context: {}\n") ==
        "/k/cfg:4: context \"x\" is defined twice in this file; names must be unique within a "
        "file, remove or rename one");
  CHECK(err("clusters:\n- cluster: {server: x}\n") ==
        "/k/cfg:2: an entry of clusters has no name; give it one");
  CHECK(err("clusters:\n- name: p\n  cluster: {insecure-skip-tls-verify: maybe}\n") ==
        "/k/cfg:3: cluster \"p\".insecure-skip-tls-verify must be true or false; fix the "
        "kubeconfig");
  CHECK(err("clusters:\n- name: p\n  cluster: {server: {a: b}}\n") ==
        "/k/cfg:3: cluster \"p\".server must be a string; fix the kubeconfig");
  CHECK(err("users:\n- name: u\n  user:\n    exec:\n      command: x\n      interactiveMode: "
            "Sometimes\n") ==
        "/k/cfg:6: user \"u\".exec.interactiveMode \"Sometimes\" is not one of Never, "
        "IfAvailable, Always; fix the kubeconfig");
  CHECK(err("users:\n- name: u\n  user:\n    exec: {command: x, args: oops}\n") ==
        "/k/cfg:4: user \"u\".exec.args must be a list of strings");
  CHECK(err("users:\n- name: u\n  user:\n    exec:\n      command: x\n      env:\n      - value: "
            "v\n") == "/k/cfg:7: user \"u\".exec.env has an entry without a name");
  CHECK(err("current-context: [a]\n") ==
        "/k/cfg:1: kubeconfig.current-context must be a string; "
        "fix the kubeconfig");

  // Through the loader the first broken file stops the load.
  TempDir dir;
  write_file(dir / "good", one_context("g", "https://g", "g"));
  write_file(dir / "bad", "clusters: [\n");
  ScopedEnv env("KUBECONFIG", (dir / "good").string() + ":" + (dir / "bad").string());
  auto r = load_kubeconfig(LoadOptions{});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code() == ErrorCode::Invalid);
  CHECK(r.error().message().find((dir / "bad").string() + ":2:1: malformed YAML:") == 0);
}

TEST_CASE("to_yaml writes a single-context kubeconfig that reads back the same") {
  fed::kube::Cluster cluster;
  cluster.server = "https://10.1.2.3:6443";
  cluster.certificate_authority_data = fed::kube::testing::kCaPem;
  cluster.tls_server_name = "api.internal";
  fed::kube::User user;
  user.token = "sa-token: with a colon";
  const Kubeconfig config =
      fed::kube::single_context_kubeconfig("fed-member", cluster, user, "fed-system");
  const std::string yaml = fed::kube::to_yaml(config);
  CHECK(yaml.find("apiVersion: v1") != std::string::npos);
  CHECK(yaml.find("kind: Config") != std::string::npos);
  CHECK(yaml.find("certificate-authority-data: LS0tLS1CRUdJTi") != std::string::npos);
  CHECK(yaml.find("current-context: fed-member") != std::string::npos);

  auto back = parse_kubeconfig(yaml, "/written");
  REQUIRE(back.has_value());
  CHECK(back->current_context == "fed-member");
  CHECK(back->clusters.at("fed-member").server == cluster.server);
  CHECK(back->clusters.at("fed-member").certificate_authority_data == fed::kube::testing::kCaPem);
  CHECK(back->clusters.at("fed-member").tls_server_name == "api.internal");
  CHECK(back->users.at("fed-member").token == user.token);
  CHECK(back->contexts.at("fed-member").cluster == "fed-member");
  CHECK(back->contexts.at("fed-member").user == "fed-member");
  CHECK(back->contexts.at("fed-member").namespace_name == "fed-system");

  // Exec users survive the round trip too.
  fed::kube::User sso;
  sso.exec = fed::kube::ExecConfig{"kubelogin",
                                   {"get-token"},
                                   {{"A", "1"}},
                                   "client.authentication.k8s.io/v1",
                                   InteractiveMode::Never,
                                   true,
                                   "install it"};
  Kubeconfig two = fed::kube::single_context_kubeconfig("s", cluster, sso, "");
  auto again = parse_kubeconfig(fed::kube::to_yaml(two), "/w");
  REQUIRE(again.has_value());
  const auto& e = *again->users.at("s").exec;
  CHECK(e.command == "kubelogin");
  CHECK(e.args == std::vector<std::string>{"get-token"});
  CHECK(e.env.at(0).name == "A");
  CHECK(e.api_version == "client.authentication.k8s.io/v1");
  CHECK(e.interactive_mode == InteractiveMode::Never);
  CHECK(e.provide_cluster_info);
  CHECK(e.install_hint == "install it");
  CHECK(again->contexts.at("s").namespace_name.empty());
}
