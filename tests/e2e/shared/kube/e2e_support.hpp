#pragma once
// Helpers for the e2e tests of shared/kube on the testbed's cluster c1 (scripts/testbed; the
// ctest fixture "testbed" brings it up): the admin client, kubeconfig-based clients, polling,
// and a per-test namespace removed when the test passes and kept for inspection when it fails.

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/kubeconfig_resolve.hpp"

namespace fed::kube::e2e {

using namespace std::chrono_literals;
using nlohmann::json;

inline std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int rc = ::pclose(p);
  INFO(cmd << " -> " << out);
  REQUIRE(rc == 0);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

inline RestConfig config_from(const std::string& kubeconfig) {
  LoadOptions o;
  o.kubeconfig_path = kubeconfig;
  auto c = rest_config_from_flags(o);
  if (!c) FAIL(c.error().message());
  c->qps = 300;
  c->burst = 600;
  return *c;
}

// The admin kubeconfig of c1: client-certificate authentication.
inline RestConfig admin_config() {
  static const std::string path =
      run("'" + std::string(FED_SOURCE_DIR) + "/scripts/testbed' kubeconfig c1");
  return config_from(path);
}

inline std::shared_ptr<DynamicClient> client(RestConfig c = admin_config()) {
  auto r = DynamicClient::create(std::move(c));
  if (!r) FAIL(r.error().message());
  return *r;
}

template <typename T>
T must(ApiResult<T> r, const char* what) {
  if (!r) FAIL(std::string(what) << ": " << r.error().to_error().message());
  return std::move(r).value();
}

template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = 30s) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return pred();
}

inline const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
inline const GroupVersionResource kNamespaces{"", "v1", "namespaces"};

// A namespace for one test: deleted at the end when the test passed (call pass()).
class TestNamespace final {
 public:
  explicit TestNamespace(DynamicClient& c, const std::string& what) : c_(c) {
    static std::atomic<int> n{0};
    name_ = "fed-e2e-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
    json ns{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name_}}}};
    must(c_.create(ResourceRef{kNamespaces, "", "", ""}, ns), "create namespace");
  }
  ~TestNamespace() {
    if (!passed_) {
      MESSAGE("kept namespace " << name_ << " of the failed test for inspection");
      return;
    }
    DeleteOptions d;
    d.propagation = Propagation::Background;
    (void)c_.remove(ResourceRef{kNamespaces, "", name_, ""}, d);
  }
  void pass() { passed_ = true; }
  const std::string& name() const { return name_; }
  ResourceRef configmaps() const { return ResourceRef{kConfigMaps, name_, "", ""}; }

 private:
  DynamicClient& c_;
  std::string name_;
  bool passed_ = false;
};

inline json configmap(const std::string& name, json data = json::object()) {
  return json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", {{"name", name}}},
              {"data", std::move(data)}};
}

}  // namespace fed::kube::e2e
