// kubectl fed host: its action and flag checks, and the list's rows.

#include <doctest/doctest.h>

#include "plugin/host/host.hpp"
#include "plugin/host/host_checks.hpp"

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

TEST_CASE("host remove keeps a host and a quorum of healthy members") {
  auto host = [](const std::string& name, bool ready) {
    return json{
        {"metadata", {{"name", name}}},
        {"status", {{"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
  };
  auto list = [](std::vector<json> items) {
    json l{{"items", json::array()}};
    for (auto& i : items) l["items"].push_back(std::move(i));
    return l;
  };
  // Three healthy: any one may go (two remain, both needed and there).
  CHECK(check_removal_keeps_quorum(list({host("c1", true), host("c2", true), host("c3", true)}),
                                   "c3"));
  // c2 is down: removing c3 would leave c1 alone of two members, below the quorum of two.
  auto no_quorum = check_removal_keeps_quorum(
      list({host("c1", true), host("c2", false), host("c3", true)}), "c3");
  REQUIRE_FALSE(no_quorum);
  CHECK(no_quorum.error().message().find("without a quorum: 1 of the other 2") !=
        std::string::npos);
  // Removing the broken one is what fixes it.
  CHECK(check_removal_keeps_quorum(list({host("c1", true), host("c2", false), host("c3", true)}),
                                   "c2"));
  CHECK(check_removal_keeps_quorum(list({host("c1", true)}), "c1").error().message() ==
        "c1 is the federation's last host: it cannot be removed");
  CHECK(check_removal_keeps_quorum(list({host("c1", true)}), "c9").error().code() ==
        fed::ErrorCode::NotFound);
}
