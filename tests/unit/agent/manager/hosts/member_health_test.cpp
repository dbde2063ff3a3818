#include "agent/manager/hosts/member_health.hpp"
#include "agent/manager/hosts/member_probe.hpp"

#include <doctest/doctest.h>

using fed::etcd::StatusResponse;
using fed::hosts::health_status;
using fed::hosts::kLagTolerance;
using fed::hosts::member_health;
using fed::hosts::MemberHealth;

namespace {

StatusResponse status(std::uint64_t id, std::uint64_t leader, std::uint64_t raft_index) {
  StatusResponse s;
  s.header.member_id = id;
  s.leader = leader;
  s.raft_index = raft_index;
  return s;
}

}  // namespace

TEST_CASE("a member that does not answer is unreachable, with the error") {
  const MemberHealth h = member_health(std::nullopt, "dial tcp 172.31.0.3:2379: timeout", {});
  CHECK(h == MemberHealth{"unreachable", std::nullopt, "dial tcp 172.31.0.3:2379: timeout"});
}

TEST_CASE("the leader and a follower within the tolerance are healthy") {
  const auto leader = status(1, 1, 50'000);
  CHECK(member_health(leader, "", leader) == MemberHealth{"healthy", std::nullopt, "", true});
  CHECK(member_health(status(2, 1, 50'000 - kLagTolerance), "", leader) ==
        MemberHealth{"healthy", std::nullopt, ""});
  // A follower momentarily ahead of the leader's answer is not behind.
  CHECK(member_health(status(2, 1, 50'010), "", leader).health == "healthy");
  // Without the leader's status there is nothing to compare with.
  CHECK(member_health(status(2, 1, 10), "", std::nullopt).health == "healthy");
}

TEST_CASE("a member far behind the leader is lagging by how many entries") {
  const MemberHealth h = member_health(status(3, 1, 40'000), "", status(1, 1, 50'000));
  CHECK(h.health == "lagging");
  CHECK(h.lag == 10'000);
  CHECK(h.message == "10000 raft entries behind the leader");
}

TEST_CASE("alarms and a member without a leader are reported") {
  auto alarmed = status(2, 1, 5);
  alarmed.errors = {"NOSPACE", "CORRUPT"};
  CHECK(member_health(alarmed, "", status(1, 1, 5)) ==
        MemberHealth{"alarm", std::nullopt, "NOSPACE; CORRUPT"});
  CHECK(member_health(status(2, 0, 5), "", std::nullopt).health == "no leader");
}

TEST_CASE("the status patch removes lag and message once healthy again") {
  CHECK(health_status({"lagging", 5000, "5000 raft entries behind the leader"}) ==
        nlohmann::json{{"health", "lagging"},
                       {"lag", 5000},
                       {"message", "5000 raft entries behind the leader"},
                       {"raftLeader", nullptr}});
  CHECK(health_status({"healthy", std::nullopt, ""}) == nlohmann::json{{"health", "healthy"},
                                                                       {"lag", nullptr},
                                                                       {"message", nullptr},
                                                                       {"raftLeader", nullptr}});
  CHECK(health_status({"healthy", std::nullopt, "", true})["raftLeader"] == true);
}

TEST_CASE("other hosts reach a member at the client URL on its peer URL's host") {
  fed::etcd::MemberInfo m;
  m.peer_urls = {"https://172.31.0.3:2480"};
  m.client_urls = {"https://172.30.3.11:2479", "https://172.31.0.3:2479"};
  CHECK(fed::hosts::reachable_client_url(m) == "https://172.31.0.3:2479");
  m.client_urls = {"https://172.30.3.11:2479"};  // a member started before it advertised both
  CHECK(fed::hosts::reachable_client_url(m) == "https://172.30.3.11:2479");
  m.client_urls.clear();
  CHECK(fed::hosts::reachable_client_url(m).empty());
  m.peer_urls = {"https://[fd00::3]:2480"};
  m.client_urls = {"https://10.0.0.1:2479", "https://[fd00::3]:2479"};
  CHECK(fed::hosts::reachable_client_url(m) == "https://[fd00::3]:2479");
}
