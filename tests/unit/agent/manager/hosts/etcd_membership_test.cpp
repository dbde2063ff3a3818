// The federation etcd's membership per FederationHost: add as a learner, promote once started,
// remove unless it is the last voting member; the initial cluster a new member starts with.

#include "agent/manager/hosts/etcd_membership.hpp"

#include <doctest/doctest.h>

using namespace fed::hosts;
using fed::etcd::MemberInfo;

namespace {

MemberInfo member(std::uint64_t id, std::string name, std::string peer, bool learner = false) {
  MemberInfo m;
  m.id = id;
  m.name = std::move(name);
  m.peer_urls = {std::move(peer)};
  m.is_learner = learner;
  return m;
}

const std::string kC1 = "https://172.31.0.1:2480";
const std::string kC2 = "https://172.31.0.2:2480";

}  // namespace

TEST_CASE("a new host's member: added as a learner, promoted once started, then left alone") {
  std::vector<MemberInfo> members{member(7, "c1", kC1)};
  CHECK(decide(members, kC2, false).action == MemberAction::Add);
  CHECK(phase_of(decide(members, kC2, false).member, false) == "Adding");

  members.push_back(member(42, "", kC2, true));  // added, not started
  auto d = decide(members, kC2, false);
  CHECK(d.action == MemberAction::None);
  CHECK(phase_of(d.member, false) == "Learner");
  CHECK(initial_cluster(members, "c2", kC2) ==
        "c1=https://172.31.0.1:2480,c2=https://172.31.0.2:2480");

  members[1].name = "c2";  // started
  CHECK(decide(members, kC2, false).action == MemberAction::Promote);
  members[1].is_learner = false;
  d = decide(members, kC2, false);
  CHECK(d.action == MemberAction::None);
  CHECK(phase_of(d.member, false) == "Member");
  // The first host's own member is already there.
  CHECK(decide(members, kC1, false).action == MemberAction::None);
}

TEST_CASE("removing a host: its member goes, unless it is the last voting one") {
  std::vector<MemberInfo> members{member(7, "c1", kC1), member(42, "c2", kC2)};
  CHECK(decide(members, kC2, true).action == MemberAction::Remove);
  CHECK(phase_of(decide(members, kC2, true).member, true) == "Removing");
  members.pop_back();
  CHECK(decide(members, kC1, true).action == MemberAction::KeepLast);
  // A learner beside it does not vote: c1 is still the last voting member.
  members.push_back(member(42, "c2", kC2, true));
  CHECK(decide(members, kC1, true).action == MemberAction::KeepLast);
  CHECK(decide(members, kC2, true).action == MemberAction::Remove);  // a learner may go
  // Gone already: nothing to do.
  CHECK(decide({member(7, "c1", kC1)}, kC2, true).action == MemberAction::None);
}

TEST_CASE("member ids print as etcdctl prints them") {
  CHECK(hex_id(10276657743932975437ull) == "8e9e05c52164694d");
  CHECK(hex_id(42) == "2a");
}
