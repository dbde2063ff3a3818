#include "agent/manager/hosts/member_health.hpp"

namespace fed::hosts {

MemberHealth member_health(const std::optional<etcd::StatusResponse>& member,
                           const std::string& error,
                           const std::optional<etcd::StatusResponse>& leader) {
  if (!member) return {"unreachable", std::nullopt, error};
  if (!member->errors.empty()) {
    std::string alarms;
    for (const auto& e : member->errors) alarms += (alarms.empty() ? "" : "; ") + e;
    return {"alarm", std::nullopt, alarms};
  }
  if (member->leader == 0) {
    return {"no leader", std::nullopt, "it follows no leader: it cannot reach a quorum"};
  }
  if (member->leader == member->header.member_id) return {"healthy", {}, "", true};
  if (!leader) return {"healthy", {}, ""};
  const std::uint64_t lag =
      leader->raft_index > member->raft_index ? leader->raft_index - member->raft_index : 0;
  if (lag <= kLagTolerance) return {"healthy", {}, ""};
  return {"lagging", lag, std::to_string(lag) + " raft entries behind the leader"};
}

nlohmann::json health_status(const MemberHealth& health) {
  nlohmann::json j{
      {"health", health.health}, {"lag", nullptr}, {"message", nullptr}, {"raftLeader", nullptr}};
  if (health.lag) j["lag"] = *health.lag;
  if (!health.message.empty()) j["message"] = health.message;
  if (health.raft_leader) j["raftLeader"] = true;
  return j;
}

}  // namespace fed::hosts
