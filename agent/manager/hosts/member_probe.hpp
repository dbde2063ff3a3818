#pragma once
// Asks the federation etcd's members how they are, for the host controller: one client over
// every member's client URL (rebuilt when the membership's URLs change), Maintenance.Status of
// the member and of the leader it follows, judged by member_health.hpp; and moves the etcd
// leadership. The manager's own etcd client talks to its host's member only, so it cannot
// ask the others.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/manager/hosts/member_health.hpp"
#include "shared/etcd/client.hpp"

namespace fed::hosts {

// The client URL at which other hosts reach `member`: the one on its peer URL's host (the
// gateway's address; the other, the node's InternalIP, is for its own host's managers), else the
// first; empty when it has none (not started).
std::string reachable_client_url(const etcd::MemberInfo& member);

class MemberProbe final {
 public:
  explicit MemberProbe(etcd::TlsFiles tls);

  // The health of member `id` of `members`. Blocks up to the status timeout when it does not
  // answer. Not thread-safe: the host controller has one worker.
  MemberHealth probe(const std::vector<etcd::MemberInfo>& members, std::uint64_t id);

  // Hands the etcd cluster's leadership to member `id` (Maintenance.MoveLeader, sent to the
  // current leader; etcd lets the member catch up first).
  Status make_leader(const std::vector<etcd::MemberInfo>& members, std::uint64_t id);

 private:
  Status connect(const std::vector<etcd::MemberInfo>& members);
  std::optional<std::size_t> index_of(std::uint64_t id) const;

  etcd::TlsFiles tls_;
  std::vector<std::string> urls_;  // the client's endpoints, one per member with a client URL
  std::vector<std::uint64_t> ids_;
  std::unique_ptr<etcd::EtcdClient> client_;
};

}  // namespace fed::hosts
