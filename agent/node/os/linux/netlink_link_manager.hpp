#pragma once
// NetlinkLinkManager: LinkManager over libnl (rtnl_link, rtnl_addr, rtnl_neigh) in the network
// namespace the object was created in. The agent's marker is the interface alias.

#include <memory>

#include "agent/node/os/link_manager.hpp"

namespace fed::os {

// Interface alias that marks a link as created by the agent.
inline constexpr std::string_view kOwnedLinkAlias = "fed-agent";

class NetlinkLinkManager final : public LinkManager {
 public:
  static Result<std::unique_ptr<NetlinkLinkManager>> create();
  ~NetlinkLinkManager() override;

  Result<std::optional<VxlanState>> vxlan(std::string_view name) override;
  Status create_vxlan(const VxlanDevice& device) override;
  Status delete_vxlan(std::string_view name) override;
  Status add_fdb(std::string_view device, const FdbEntry& entry) override;
  Status delete_fdb(std::string_view device, const FdbEntry& entry) override;
  Status add_neighbour(std::string_view device, const NeighbourEntry& entry) override;
  Status delete_neighbour(std::string_view device, const NeighbourEntry& entry) override;
  Result<bool> link_exists(std::string_view name) override;
  Result<std::vector<ConnectedNetwork>> connected_networks() override;
  Result<std::optional<LinkState>> link(std::string_view name) override;
  Status set_link(std::string_view name, const LinkSettings& settings) override;
  Status add_address(std::string_view name, const LinkAddress& address) override;
  Status delete_address(std::string_view name, const LinkAddress& address) override;
  Status delete_owned_link(std::string_view name) override;

 private:
  struct State;
  explicit NetlinkLinkManager(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace fed::os
