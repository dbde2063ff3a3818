#include "agent/manager/hosts/etcd_membership.hpp"

#include <algorithm>
#include <cstdio>

namespace fed::hosts {

std::optional<etcd::MemberInfo> member_at(const std::vector<etcd::MemberInfo>& members,
                                          const std::string& peer_url) {
  for (const auto& m : members) {
    if (std::find(m.peer_urls.begin(), m.peer_urls.end(), peer_url) != m.peer_urls.end()) {
      return m;
    }
  }
  return std::nullopt;
}

MemberDecision decide(const std::vector<etcd::MemberInfo>& members, const std::string& peer_url,
                      bool deleting) {
  MemberDecision d;
  d.member = member_at(members, peer_url);
  if (deleting) {
    if (!d.member) return d;
    const auto voting = std::count_if(members.begin(), members.end(),
                                      [](const etcd::MemberInfo& m) { return !m.is_learner; });
    d.action = !d.member->is_learner && voting <= 1 ? MemberAction::KeepLast : MemberAction::Remove;
    return d;
  }
  if (!d.member) {
    d.action = MemberAction::Add;
  } else if (d.member->is_learner && !d.member->name.empty()) {
    d.action = MemberAction::Promote;
  }
  return d;
}

std::string initial_cluster(const std::vector<etcd::MemberInfo>& members, const std::string& host,
                            const std::string& peer_url) {
  std::vector<std::string> entries;
  for (const auto& m : members) {
    const bool ours =
        std::find(m.peer_urls.begin(), m.peer_urls.end(), peer_url) != m.peer_urls.end();
    const std::string name = ours ? host : m.name;
    for (const auto& url : m.peer_urls) entries.push_back(name + "=" + url);
  }
  std::sort(entries.begin(), entries.end());
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ",") + e;
  return out;
}

std::string phase_of(const std::optional<etcd::MemberInfo>& member, bool deleting) {
  if (deleting) return "Removing";
  if (!member) return "Adding";
  return member->is_learner ? "Learner" : "Member";
}

std::string hex_id(std::uint64_t id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(id));
  return buf;
}

}  // namespace fed::hosts
