// run_version without a parser, against a fake API server on loopback.

#include "plugin/cli/version.hpp"

#include <doctest/doctest.h>

#include <sstream>

#include <yaml-cpp/yaml.h>

#include "shared/util/build_info.hpp"
#include "tests/unit/plugin/connect/fake_cluster.hpp"

using fed::plugin::GlobalOptions;
using fed::plugin::Output;
using fed::plugin::OutputFormat;
using fed::plugin::Progress;
using fed::plugin::VersionOptions;

TEST_CASE("run_version prints client and server versions") {
  fed::plugin::test::FakeCluster cluster;
  GlobalOptions global;
  global.kubeconfig = cluster.kubeconfig();
  std::ostringstream out, err;
  Output o(out, err, OutputFormat::Table, Progress::Hidden);
  REQUIRE(fed::plugin::run_version(global, VersionOptions{}, o));
  CHECK(out.str() == "Client Version: v" + std::string(fed::build::version()) + " (commit " +
                         std::string(fed::build::git_commit()) + ")\nServer Version: v1.29.2\n");
}

TEST_CASE("run_version -o json carries the server's whole /version object") {
  fed::plugin::test::FakeCluster cluster;
  GlobalOptions global;
  global.kubeconfig = cluster.kubeconfig();
  std::ostringstream out, err;
  Output o(out, err, OutputFormat::Json, Progress::Hidden);
  REQUIRE(fed::plugin::run_version(global, VersionOptions{}, o));
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc["clientVersion"]["gitVersion"] == "v" + std::string(fed::build::version()));
  CHECK(doc["serverVersion"] == nlohmann::json::parse(fed::plugin::test::kServerVersionJson));
}

TEST_CASE("run_version --client does not read any kubeconfig") {
  GlobalOptions global;
  global.kubeconfig = "/nonexistent/kubeconfig";
  VersionOptions options;
  options.client_only = true;
  std::ostringstream out, err;
  Output o(out, err, OutputFormat::Yaml, Progress::Hidden);
  REQUIRE(fed::plugin::run_version(global, options, o));
  // Read it back: the commit may be all digits and then is quoted.
  const YAML::Node doc = YAML::Load(out.str());
  CHECK(doc["clientVersion"]["gitCommit"].as<std::string>() == fed::build::git_commit());
  CHECK(doc["clientVersion"]["gitVersion"].as<std::string>() ==
        "v" + std::string(fed::build::version()));
  CHECK(doc.size() == 1);
}

TEST_CASE("an unreachable server still prints the client version, then fails as Unavailable") {
  fed::plugin::test::FakeCluster cluster;
  GlobalOptions global;
  global.kubeconfig = cluster.kubeconfig();
  global.context = "closed";
  std::ostringstream out, err;
  Output o(out, err, OutputFormat::Table, Progress::Hidden);
  auto status = fed::plugin::run_version(global, VersionOptions{}, o);
  REQUIRE_FALSE(status);
  CHECK(status.error().code() == fed::ErrorCode::Unavailable);
  CHECK(status.error().message().find("127.0.0.1:1") != std::string::npos);
  CHECK(out.str().find("Client Version: v") == 0);
  CHECK(out.str().find("Server Version") == std::string::npos);
}
