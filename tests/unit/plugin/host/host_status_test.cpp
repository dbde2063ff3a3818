// The HOSTS part of kubectl fed status: the leader from fed-leader, this host's role, its etcd
// member's and manager replicas' readiness, and the other hosts as the leader's probes see them.

#include "plugin/host/host_status.hpp"

#include <doctest/doctest.h>

using namespace fed::plugin;
using nlohmann::json;

namespace {

json pod(const std::string& name, bool ready, const std::string& node, bool leader = false) {
  json p{
      {"metadata", {{"name", name}, {"labels", json::object()}}},
      {"spec", {{"nodeName", node}}},
      {"status",
       {{"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}}}};
  if (leader) p["metadata"]["labels"]["kubectl-fed.io/manager-leader"] = "true";
  return p;
}

json federation_host(const std::string& name, const std::string& phase, json etcd) {
  return {{"metadata", {{"name", name}}},
          {"status", {{"phase", phase}, {"etcd", std::move(etcd)}}}};
}

json list(std::vector<json> pods) {
  json l{{"items", json::array()}};
  for (auto& p : pods) l["items"].push_back(std::move(p));
  return l;
}

}  // namespace

TEST_CASE("status: the leader, this host's role, its etcd member and manager replicas") {
  HostObservation o{
      "c1",
      json{{"data",
            {{"holder", "fed-manager-x_1"},
             {"host", "c1"},
             {"epoch", "2"},
             {"since", "2026-11-26T22:00:36Z"},
             {"failoverSeconds", "0.703"}}}},
      list({pod("fed-etcd-a", true, "node1")}),
      list({pod("fed-manager-x", true, "node1", true), pod("fed-manager-y", false, "node2")}),
      std::nullopt};
  const json doc = hosts_document(o);
  CHECK(doc["leader"]["holder"] == "fed-manager-x_1");
  CHECK(leader_line(doc) ==
        "Leader: fed-manager-x_1 on host c1 (epoch 2, since 2026-11-26T22:00:36Z, took over after "
        "0.703 s)");
  const Table t = hosts_table(doc);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0] ==
        std::vector<std::string>{"c1", "leader", "healthy", "-", "1/2", "fed-manager-x"});

  // Another host leads; this one's etcd member is down.
  o.leader = json{{"data", {{"holder", "fed-manager-z_1"}, {"host", "c9"}, {"epoch", "3"}}}};
  o.etcd_pods = list({pod("fed-etcd-a", false, "node1")});
  CHECK(hosts_table(hosts_document(o)).rows[0] ==
        std::vector<std::string>{"c1", "follower", "unhealthy", "-", "1/2", "fed-manager-x"});

  // Nobody leads (no quorum) and nothing could be read.
  o.leader = json{{"data", {{"holder", "None"}}}};
  o.etcd_pods.reset();
  o.manager_pods = list({});
  const json none = hosts_document(o);
  CHECK(none["leader"].is_null());
  CHECK(leader_line(none).rfind("Leader: none", 0) == 0);
  CHECK(hosts_table(none).rows[0] ==
        std::vector<std::string>{"c1", "no leader", "unknown", "-", "0/0", "-"});
  o.leader.reset();
  CHECK(hosts_document(o)["hosts"][0]["role"] == "no leader");
}

TEST_CASE("status: every host, as the leader's probes of their etcd members see them") {
  HostObservation o{
      "c2", json{{"data", {{"holder", "c1/fed-manager-x_1"}, {"host", "c1"}, {"epoch", "4"}}}},
      list({pod("fed-etcd-b", true, "node1")}), list({pod("fed-manager-y", true, "node1")}),
      std::nullopt};
  o.federation_hosts =
      list({federation_host("c3", "Member",
                            {{"health", "unreachable"}, {"lag", nullptr}, {"message", "timeout"}}),
            federation_host("c1", "Member", {{"health", "healthy"}, {"raftLeader", true}}),
            federation_host("c2", "Member",
                            {{"health", "lagging"}, {"lag", 12000}, {"message", "12000 behind"}}),
            federation_host("c4", "Learner", {{"health", "healthy"}})});
  const json doc = hosts_document(o);
  REQUIRE(doc["hosts"].size() == 4);
  CHECK(doc["hosts"][0]["etcd"] == json{{"state", "healthy"},
                                        {"node", "node1"},
                                        {"phase", "Member"},
                                        {"health", "lagging"},
                                        {"lag", 12000},
                                        {"message", "12000 behind"}});
  CHECK(doc["hosts"][1]["managers"].is_null());
  const Table t = hosts_table(doc);
  CHECK(t.headers == std::vector<std::string>{"HOST", "ROLE", "ETCD MEMBER", "LAG",
                                              "MANAGERS READY", "LEADER POD"});
  CHECK(t.rows[0] ==
        std::vector<std::string>{"c2", "follower", "lagging", "12000 entries", "1/1", "-"});
  CHECK(t.rows[1] ==
        std::vector<std::string>{"c1", "leader", "healthy, raft leader", "in sync", "-", "-"});
  CHECK(t.rows[2] == std::vector<std::string>{"c3", "unreachable", "unreachable", "-", "-", "-"});
  CHECK(t.rows[3] ==
        std::vector<std::string>{"c4", "follower", "healthy (Learner)", "in sync", "-", "-"});
}

TEST_CASE("status: a finished pod left beside its replacement is not the member nor a replica") {
  // What a killed host showed after it came back: the etcd Deployment's old pod Failed
  // (ContainerStatusUnknown) and listed first, its replacement Running and Ready.
  json lost = pod("fed-etcd-a", false, "node1");
  lost["status"]["phase"] = "Failed";
  json lost_manager = pod("fed-manager-old", false, "node1");
  lost_manager["status"]["phase"] = "Failed";
  HostObservation o{"c3", json{{"data", {{"holder", "c1/m_1"}, {"host", "c1"}, {"epoch", "9"}}}},
                    list({lost, pod("fed-etcd-b", true, "node1")}),
                    list({lost_manager, pod("fed-manager-x", true, "node1"),
                          pod("fed-manager-y", true, "node1")}),
                    std::nullopt};
  const json here = hosts_document(o)["hosts"][0];
  CHECK(here["etcd"]["state"] == "healthy");
  CHECK(here["managers"] == json{{"ready", 2}, {"total", 2}});

  // Only the finished pod: the member is missing, not unhealthy.
  o.etcd_pods = list({lost});
  CHECK(hosts_document(o)["hosts"][0]["etcd"]["state"] == "missing");
}
