// kubectl fed host: its action and flag checks, and the list's rows.

#include <doctest/doctest.h>

#include "plugin/host/host.hpp"

using namespace fed::plugin;
using nlohmann::json;

TEST_CASE("host: unknown actions, a missing or bad NAME and a bad address are refused") {
  HostOptions o;
  o.action = "promote";
  CHECK(validate_host_flags(o).error().message().find("unknown host action \"promote\"") == 0);
  o.action = "add";
  CHECK(validate_host_flags(o).error().message().find("host add needs the new host's NAME") == 0);
  o.name = "Bad_Name";
  CHECK(validate_host_flags(o).error().code() == fed::ErrorCode::Invalid);
  o.name = "c2";
  CHECK(validate_host_flags(o));
  o.gateway_address = "172.31.0.256";
  CHECK_FALSE(validate_host_flags(o));
  o = HostOptions{};
  o.action = "list";
  CHECK(validate_host_flags(o));
  o.name = "c2";
  CHECK(validate_host_flags(o).error().message() ==
        "host list takes no NAME (it lists every host)");
}

TEST_CASE("host list: each host's role, etcd phase, member id and readiness") {
  const json hosts = json::parse(R"({"items": [
    {"metadata": {"name": "c1"}, "spec": {"etcdPeerURL": "https://172.31.0.1:2480"},
     "status": {"phase": "Member", "memberID": "8e9e05c52164694d",
                "conditions": [{"type": "Ready", "status": "True"}]}},
    {"metadata": {"name": "c2"}, "spec": {"etcdPeerURL": "https://172.31.0.2:2480"},
     "status": {"phase": "Learner", "memberID": "2a",
                "conditions": [{"type": "Ready", "status": "False"}]}},
    {"metadata": {"name": "c3"}, "spec": {"etcdPeerURL": "https://172.31.0.3:2480"}}]})");
  const Table t = host_list_table(hosts, json{{"holder", "fed-manager-x_1"}, {"host", "c1"}});
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0] == std::vector<std::string>{"c1", "leader", "Member", "8e9e05c52164694d",
                                              "https://172.31.0.1:2480", "True"});
  CHECK(t.rows[1] == std::vector<std::string>{"c2", "follower", "Learner", "2a",
                                              "https://172.31.0.2:2480", "False"});
  CHECK(t.rows[2] == std::vector<std::string>{"c3", "follower", "Adding", "-",
                                              "https://172.31.0.3:2480", "Unknown"});
  // Nobody leads: no roles.
  CHECK(host_list_table(hosts, json{{"holder", "None"}}).rows[0][1] == "-");
}
