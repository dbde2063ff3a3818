// What the elected manager publishes about itself (agent/manager/ha): the bodies of the pod
// label patch, the fed-leader ConfigMap and the LeaderElected Event, the metrics, and the
// writes against a loopback API server.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/ha/leader_announcement.hpp"
#include "agent/manager/ha/leader_metrics.hpp"
#include "agent/manager/ha/leader_pod_label.hpp"
#include "shared/kube/event_recorder.hpp"
#include "shared/metrics/registry.hpp"
#include "tests/unit/shared/kube/kube_test_support.hpp"
#include "tests/unit/shared/kube/loopback_client.hpp"
#include "tests/unit/shared/kube/loopback_server.hpp"

namespace fed::ha {
namespace {

using namespace std::chrono_literals;
using kube::testing::loopback_client;
using kube::testing::LoopbackServer;
using kube::testing::ScopedEnv;
using kube::testing::TestRequest;
using kube::testing::TestResponse;
using nlohmann::json;

const LeaderAnnouncement kTakeover{"fed-manager-abc_12", "c1", 3, "2026-11-26T19:00:00Z", 712ms};

// Answers every write with its body plus a uid; fails the first `failures` requests with 403.
struct ApiServer {
  std::atomic<int> failures{0};
  LoopbackServer server{[this](const TestRequest& req) {
    if (failures.fetch_sub(1) > 0) {
      return TestResponse::json(
          403, R"({"kind":"Status","status":"Failure","reason":"Forbidden","code":403})");
    }
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) body = json::object();
    body["metadata"]["uid"] = "uid-1";
    return TestResponse::json(req.method == "POST" ? 201 : 200, body.dump());
  }};
  std::shared_ptr<kube::DynamicClient> client() const { return loopback_client(server, "host"); }
};

}  // namespace

TEST_CASE("the pod label patch sets the label, or removes it with null") {
  CHECK(leader_label_patch(true) ==
        json::parse(R"({"metadata":{"labels":{"kubectl-fed.io/manager-leader":"true"}}})"));
  CHECK(leader_label_patch(false) ==
        json::parse(R"({"metadata":{"labels":{"kubectl-fed.io/manager-leader":null}}})"));
}

TEST_CASE("the own pod comes from POD_NAME and POD_NAMESPACE, the federation's by default") {
  {
    ScopedEnv name("POD_NAME", std::nullopt);
    CHECK_FALSE(own_pod_from_env());
  }
  {
    ScopedEnv name("POD_NAME", "");
    CHECK_FALSE(own_pod_from_env());
  }
  ScopedEnv name("POD_NAME", "fed-manager-abc");
  {
    ScopedEnv ns("POD_NAMESPACE", std::nullopt);
    auto pod = own_pod_from_env();
    REQUIRE(pod);
    CHECK(pod->ns == "kubectl-fed-system");
    CHECK(pod->name == "fed-manager-abc");
  }
  ScopedEnv ns("POD_NAMESPACE", "other");
  CHECK(own_pod_from_env()->ns == "other");
}

TEST_CASE("fed-leader carries holder, host, epoch, since, role and the failover when known") {
  const json cm = leader_configmap(kTakeover);
  CHECK(cm["apiVersion"] == "v1");
  CHECK(cm["kind"] == "ConfigMap");
  CHECK(cm["metadata"]["name"] == "fed-leader");
  CHECK(cm["metadata"]["namespace"] == "kubectl-fed-system");
  CHECK(cm["metadata"]["labels"] == json{{"app.kubernetes.io/part-of", "kubectl-fed"}});
  CHECK(cm["data"] == json{{"holder", "fed-manager-abc_12"},
                           {"host", "c1"},
                           {"epoch", "3"},
                           {"since", "2026-11-26T19:00:00Z"},
                           {"role", "leader"},
                           {"failoverSeconds", "0.712"}});
  LeaderAnnouncement first = kTakeover;
  first.failover.reset();
  CHECK_FALSE(leader_configmap(first)["data"].contains("failoverSeconds"));
}

TEST_CASE("the LeaderElected message names holder, host, epoch and the time without a leader") {
  CHECK(leader_event_message(kTakeover) ==
        "fed-manager-abc_12 on host c1 leads the federation (epoch 3) after 0.71 s without a "
        "leader");
  LeaderAnnouncement first = kTakeover;
  first.epoch = 1;
  first.failover.reset();
  CHECK(leader_event_message(first) ==
        "fed-manager-abc_12 on host c1 leads the federation (epoch 1)");
  LeaderAnnouncement alone = first;
  alone.epoch = 0;
  CHECK(leader_event_message(alone) ==
        "fed-manager-abc_12 on host c1 leads the federation (no leader election)");
  CHECK(format_seconds(1500ms, 3) == "1.500");
  CHECK(format_seconds(0ns, 2) == "0.00");
}

TEST_CASE("the pod label is one merge patch of the own pod; settled tracks what landed") {
  ApiServer api;
  LeaderPodLabel label(api.client(), PodName{"kubectl-fed-system", "fed-manager-abc"});
  CHECK_FALSE(label.settled());  // a candidate has not cleared the label yet
  REQUIRE(label.apply(false));
  CHECK(label.settled());
  const auto requests = api.server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "PATCH");
  CHECK(requests[0].path == "/api/v1/namespaces/kubectl-fed-system/pods/fed-manager-abc");
  CHECK(requests[0].header("content-type") == "application/merge-patch+json");
  CHECK(json::parse(requests[0].body) == leader_label_patch(false));

  // Leading: not settled until the label lands; retried until it does.
  api.failures = 2;
  auto refused = label.apply(true);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code() == ErrorCode::Permission);
  CHECK(refused.error().message().find("labelling pod kubectl-fed-system/fed-manager-abc") == 0);
  CHECK_FALSE(label.settled());
  std::stop_source stop;
  CHECK(label.apply_until_done(true, stop.get_token(), 1ms));
  CHECK(label.settled());
  CHECK(json::parse(api.server.requests().back().body) == leader_label_patch(true));
  CHECK(api.server.request_count() == 4);  // cleared, refused twice, labelled

  // A stop ends the retries.
  api.failures = 1000;
  std::stop_source stopping;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(50ms);
    stopping.request_stop();
  });
  CHECK_FALSE(label.apply_until_done(false, stopping.get_token(), 1ms));
  CHECK_FALSE(label.settled());
}

TEST_CASE("without a pod the label is never written and always settled") {
  ApiServer api;
  LeaderPodLabel label(api.client(), std::nullopt);
  CHECK(label.settled());
  CHECK(label.apply(true));
  CHECK(label.apply_until_done(false, {}));
  CHECK(api.server.request_count() == 0);
}

TEST_CASE("publishing applies fed-leader (ConfigMap and FederationLeader), then the Event") {
  ApiServer api;
  auto client = api.client();
  kube::EventRecorder events(client, kube::EventSource{"fed-agent-manager", ""});
  REQUIRE(publish_leader(*client, events, kTakeover));
  const auto requests = api.server.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].method == "PATCH");
  CHECK(requests[0].path == "/api/v1/namespaces/kubectl-fed-system/configmaps/fed-leader");
  CHECK(requests[0].header("content-type") == "application/apply-patch+yaml");
  CHECK(requests[0].param("fieldManager") == "fed-agent-manager");
  CHECK(requests[0].param("force") == "true");
  CHECK(json::parse(requests[0].body) == leader_configmap(kTakeover));

  // The follower policy's parameter: the same, cluster-scoped, without the failover.
  CHECK(requests[1].method == "PATCH");
  CHECK(requests[1].path == "/apis/fed.kubectl-fed.io/v1alpha1/federationleaders/fed-leader");
  CHECK(requests[1].param("force") == "true");
  const json param = json::parse(requests[1].body);
  CHECK(param == leader_object(kTakeover));
  CHECK(param["kind"] == "FederationLeader");
  CHECK(param["spec"] == json{{"holder", "fed-manager-abc_12"},
                              {"host", "c1"},
                              {"epoch", "3"},
                              {"since", "2026-11-26T19:00:00Z"},
                              {"role", "leader"}});

  CHECK(requests[2].method == "POST");
  CHECK(requests[2].path == "/api/v1/namespaces/kubectl-fed-system/events");
  const json event = json::parse(requests[2].body);
  CHECK(event["involvedObject"] == json{{"apiVersion", "v1"},
                                        {"kind", "ConfigMap"},
                                        {"name", "fed-leader"},
                                        {"namespace", "kubectl-fed-system"},
                                        {"uid", "uid-1"}});
  CHECK(event["type"] == "Normal");
  CHECK(event["reason"] == "LeaderElected");
  CHECK(event["message"] == leader_event_message(kTakeover));
}

TEST_CASE("a failed publish is retried a few times, then given up") {
  ApiServer api;
  auto client = api.client();
  kube::EventRecorder events(client, kube::EventSource{"fed-agent-manager", ""});
  api.failures = 2;
  CHECK(publish_leader_with_retries(*client, events, kTakeover, {}, 5, 1ms));
  // Two refused ConfigMap applies, then the ConfigMap, the FederationLeader and the Event.
  CHECK(api.server.request_count() == 5);

  ApiServer down;
  down.failures = 1000;
  auto refused = publish_leader(*down.client(), events, kTakeover);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message().find("writing ConfigMap kubectl-fed-system/fed-leader: ") == 0);
  CHECK_FALSE(publish_leader_with_retries(*down.client(), events, kTakeover, {}, 3, 1ms));
  CHECK(down.server.request_count() == 4);  // the one above, then three attempts
}

TEST_CASE("the leader metrics: leading, terms seen, failover only once taken over") {
  metrics::Registry registry;
  LeaderMetrics m(registry);
  std::string text = registry.render();
  CHECK(text.find("fed_manager_leader 0\n") != std::string::npos);
  CHECK(text.find("fed_manager_leader_changes_total 0\n") != std::string::npos);
  CHECK(text.find("fed_manager_failover_seconds") == std::string::npos);

  m.observed(LeaderRecord{"a", 1, ""});
  m.observed(std::nullopt);  // resigned: not a new leader
  m.observed(LeaderRecord{"b", 2, ""});
  m.set_leading(true);
  m.took_over(712ms);
  text = registry.render();
  CHECK(text.find("fed_manager_leader 1\n") != std::string::npos);
  CHECK(text.find("fed_manager_leader_changes_total 2\n") != std::string::npos);
  CHECK(text.find("fed_manager_failover_seconds 0.712\n") != std::string::npos);
}

}  // namespace fed::ha
