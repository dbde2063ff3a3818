#include "agent/manager/membership/former_hosts.hpp"

namespace fed::federation {

std::vector<std::string> former_hosts(const std::vector<std::string>& member_peerings,
                                      const std::set<std::string>& hosts,
                                      const std::set<std::string>& members) {
  std::vector<std::string> former;
  if (hosts.empty()) return former;
  for (const auto& peer : member_peerings) {
    if (!hosts.contains(peer) && !members.contains(peer)) former.push_back(peer);
  }
  return former;
}

}  // namespace fed::federation
