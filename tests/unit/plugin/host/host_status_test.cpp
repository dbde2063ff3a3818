// The HOSTS part of kubectl fed status: the leader from fed-leader, this host's role, its etcd
// member's and manager replicas' readiness.

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
      list({pod("fed-manager-x", true, "node1", true), pod("fed-manager-y", false, "node2")})};
  const json doc = hosts_document(o);
  CHECK(doc["leader"]["holder"] == "fed-manager-x_1");
  CHECK(leader_line(doc) ==
        "Leader: fed-manager-x_1 on host c1 (epoch 2, since 2026-11-26T22:00:36Z, took over after "
        "0.703 s)");
  const Table t = hosts_table(doc);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0] == std::vector<std::string>{"c1", "leader", "healthy", "1/2", "fed-manager-x"});

  // Another host leads; this one's etcd member is down.
  o.leader = json{{"data", {{"holder", "fed-manager-z_1"}, {"host", "c9"}, {"epoch", "3"}}}};
  o.etcd_pods = list({pod("fed-etcd-a", false, "node1")});
  CHECK(hosts_table(hosts_document(o)).rows[0] ==
        std::vector<std::string>{"c1", "follower", "unhealthy", "1/2", "fed-manager-x"});

  // Nobody leads (no quorum) and nothing could be read.
  o.leader = json{{"data", {{"holder", "None"}}}};
  o.etcd_pods.reset();
  o.manager_pods = list({});
  const json none = hosts_document(o);
  CHECK(none["leader"].is_null());
  CHECK(leader_line(none).rfind("Leader: none", 0) == 0);
  CHECK(hosts_table(none).rows[0] ==
        std::vector<std::string>{"c1", "no leader", "unknown", "0/0", "-"});
  o.leader.reset();
  CHECK(hosts_document(o)["hosts"][0]["role"] == "no leader");
}
