// kubectl fed status's document and table from FederatedClusters and Peerings.

#include "plugin/membership/status.hpp"

#include <doctest/doctest.h>

using namespace fed::plugin;
using nlohmann::json;

TEST_CASE("status lists members with conditions, networks, remappings and tunnel state") {
  const json data{{"clusterID", "c1"},
                  {"role", "host"},
                  {"podCIDR", "10.244.0.0/16"},
                  {"serviceCIDR", "10.101.0.0/16"}};
  const json clusters{
      {"items",
       json::array({{{"metadata", {{"name", "c3"}}},
                     {"spec", {{"clusterID", "c3"}, {"apiEndpoint", "https://127.0.0.1:16003"}}},
                     {"status",
                      {{"conditions", json::array({{{"type", "NetworkReady"}, {"status", "True"}},
                                                   {{"type", "TunnelReady"},
                                                    {"status", "False"},
                                                    {"message", "waiting for the gateway of c1"}},
                                                   {{"type", "Ready"}, {"status", "False"}}})},
                       {"networks",
                        {{"podCIDR", "10.244.0.0/16"},
                         {"externalCIDR", "10.0.0.0/16"},
                         {"remotePodCIDR", "10.70.0.0/16"},
                         {"remoteExternalCIDR", "None"},
                         {"localRemappedPodCIDR", "10.71.0.0/16"}}},
                       {"tunnel", {{"state", "Pending"}}}}}}})}};
  const json peerings{
      {"items", json::array({{{"metadata", {{"name", "c3"}}},
                              {"spec", {{"gatewayEndpoint", "172.31.0.3:51820"}}},
                              {"status", {{"tunnel", {{"state", "Connecting"}}}}}}})}};
  const json doc = status_document(data, clusters, peerings);
  CHECK(doc["federation"]["clusterID"] == "c1");
  REQUIRE(doc["members"].size() == 1);
  CHECK(doc["members"][0]["peering"]["gatewayEndpoint"] == "172.31.0.3:51820");
  const Table t = status_table(doc);
  REQUIRE(t.rows.size() == 1);
  const auto& row = t.rows[0];
  CHECK(row[0] == "c3");
  CHECK(row[1] == "False");       // READY
  CHECK(row[2] == "True");        // NETWORK
  CHECK(row[3] == "Connecting");  // the Peering's tunnel state
  CHECK(row[5] == "10.70.0.0/16");
  CHECK(row[7] == "None");
  CHECK(row[8] == "10.71.0.0/16");
  CHECK(row[9] == "TunnelReady: waiting for the gateway of c1");

  // The unencrypted backend is named; WireGuard, the default, is not.
  json vxlan = clusters;
  vxlan["items"][0]["status"]["tunnel"]["backend"] = "vxlan";
  CHECK(status_table(status_document(data, vxlan, peerings)).rows[0][3] == "Connecting (vxlan)");
}

TEST_CASE("status lists offloaded namespaces with phase and each member's replica") {
  const json data{{"clusterID", "c1"}, {"role", "host"}};
  const json offloadings{
      {"items",
       json::array({{{"metadata", {{"name", "offloading"}, {"namespace", "shop"}}},
                     {"spec", {{"podOffloadingStrategy", "Remote"}}},
                     {"status",
                      {{"offloadingPhase", "SomeFailed"},
                       {"remoteNamespaceName", "shop-c1"},
                       {"remoteNamespacesConditions",
                        {{"c2", json::array({{{"type", "OffloadingRequired"}, {"status", "True"}},
                                             {{"type", "Ready"}, {"status", "True"}}})},
                         {"c3", json::array({{{"type", "OffloadingRequired"}, {"status", "True"}},
                                             {{"type", "Ready"}, {"status", "False"}}})}}}}}}})}};
  const json doc = status_document(data, json::object(), json::object(), offloadings);
  REQUIRE(doc["offloadings"].size() == 1);
  CHECK(doc["offloadings"][0]["clusters"]["c3"]["ready"] == "False");
  const Table t = offloadings_table(doc);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0] ==
        std::vector<std::string>{"shop", "SomeFailed", "shop-c1", "Remote", "c2=True c3=False"});
}
