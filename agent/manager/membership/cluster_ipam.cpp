#include "agent/manager/membership/cluster_ipam.hpp"

#include <spdlog/spdlog.h>

#include <vector>

#include "agent/manager/membership/ipam_store.hpp"
#include "shared/net/net_types.hpp"

namespace fed::federation {

Result<std::unique_ptr<ClusterIpam>> ClusterIpam::open(std::shared_ptr<kube::DynamicClient> client,
                                                       const ClusterInfo& info, bool persist,
                                                       std::uint8_t block_length) {
  std::unique_ptr<ClusterIpam> self(new ClusterIpam(std::move(client), info, block_length));
  if (persist) {
    FED_TRY(self->resume());
  } else {
    std::lock_guard lock(self->mu_);
    FED_TRY(self->load());
  }
  return self;
}

Status ClusterIpam::resume() {
  std::uint64_t installed = 0;
  {
    std::lock_guard lock(mu_);
    FED_TRY(load());
    installed = ticket();
  }
  return save(installed);
}

Status ClusterIpam::load() {
  FED_ASSIGN_OR_RETURN(auto stored, read_stored_ipam(*client_));
  FED_TRY(ipam_.restore(stored.state));
  fabric::ipam::InstallSpec spec;
  spec.pod_cidr = info_.pod_cidr;
  spec.service_cidr = info_.service_cidr;
  spec.reserved_subnets = ipam_.snapshot(false).reserved_subnets;
  FED_ASSIGN_OR_RETURN(local_, ipam_.install(spec));
  block_length_ = fabric::ipam::block_length(
      stored.block_length != 0 ? stored.block_length : wanted_block_length_, local_.external_cidr);
  saved_networks_ = stored.state;
  saved_networks_.endpoints.clear();
  networks_stale_ = stored.networks_version.empty() || stored.block_length != block_length_ ||
                    stored.legacy_endpoints;
  blocks_first_ = stored.legacy_endpoints;
  networks_version_ = stored.networks_version;
  block_versions_ = std::move(stored.block_versions);
  ipam_.take_changed_addresses();  // nothing changed: what differs from storage is below
  // Blocks whose object says something else than the IPAM: missing (an older release's
  // mappings), holding dropped references, or written by a manager that died mid-way.
  dirty_blocks_.clear();
  std::set<net::Cidr> blocks;
  for (const auto& [block, endpoints] : stored.blocks) blocks.insert(block);
  for (const auto& [endpoint, es] : stored.state.endpoints) blocks.insert(block_of(es.external_ip));
  for (const auto& block : blocks) {
    auto it = stored.blocks.find(block);
    const EndpointsByIp empty;
    if (ipam_.endpoints_in(block) != (it == stored.blocks.end() ? empty : it->second)) {
      dirty_blocks_.insert(block);
    }
  }
  if (!dirty_blocks_.empty() || networks_stale_) {
    spdlog::info("IPAM: {} block(s){} to write to match the stored state{}", dirty_blocks_.size(),
                 networks_stale_ ? " and the networks" : "",
                 blocks_first_ ? " (moving an older release's mappings into IpamBlocks)" : "");
  }
  return ok();
}

Status ClusterIpam::save(std::uint64_t ticket) {
  FED_TRY(commit_.commit());
  std::lock_guard lock(mu_);
  if (ticket <= lost_through_) {
    return fail(ErrorCode::Conflict,
                "IpamState ipam was changed by someone else; the stored state was reloaded and "
                "this change dropped, the next pass makes it again");
  }
  return ok();
}

std::optional<std::string> ClusterIpam::peer_pod_ip(std::string_view cluster_id,
                                                    std::string_view ip) {
  return translate_peer_pod(cluster_id, ip, PodView::Ours);
}

std::optional<std::string> ClusterIpam::peer_own_ip(std::string_view cluster_id,
                                                    std::string_view ip) {
  return translate_peer_pod(cluster_id, ip, PodView::Peers);
}

std::optional<std::string> ClusterIpam::translate_peer_pod(std::string_view cluster_id,
                                                           std::string_view ip, PodView to) {
  auto address = net::Ipv4::parse(ip);
  if (!address) return std::nullopt;
  std::lock_guard lock(mu_);
  auto state = ipam_.cluster(cluster_id);
  if (!state || !state->subnets) return std::nullopt;
  const auto& [from, into] =
      to == PodView::Ours ? std::pair{state->subnets->pod_cidr, state->subnets->remote_pod_cidr}
                          : std::pair{state->subnets->remote_pod_cidr, state->subnets->pod_cidr};
  if (!from.contains(*address)) return std::nullopt;
  return net::map_ip_to_network(*address, into).str();
}

Status ClusterIpam::remove_peer(std::string_view cluster_id) {
  std::uint64_t removed = 0;
  {
    std::lock_guard lock(mu_);
    FED_TRY(ipam_.remove_cluster(cluster_id));
    removed = ticket();
  }
  return save(removed);
}

Status ClusterIpam::write() {
  std::optional<fabric::ipam::IpamState> networks;
  std::vector<std::pair<net::Cidr, EndpointsByIp>> blocks;
  std::string networks_version;
  std::map<net::Cidr, std::string> versions;
  bool blocks_first = false;
  std::uint8_t block_length = 0;
  {
    std::lock_guard lock(mu_);
    for (auto address : ipam_.take_changed_addresses()) dirty_blocks_.insert(block_of(address));
    auto now = ipam_.snapshot(false);
    if (networks_stale_ || !(now == saved_networks_)) networks = std::move(now);
    for (const auto& block : std::exchange(dirty_blocks_, {})) {
      blocks.emplace_back(block, ipam_.endpoints_in(block));
    }
    networks_version = networks_version_;
    versions = block_versions_;
    blocks_first = blocks_first_;
    block_length = block_length_;
  }
  // Written without mu_: the endpoint controller keeps mapping meanwhile, and its changes go
  // into the next write. A peer's networks are stored before the blocks that name it; when an
  // older release's IpamState still holds mappings, the blocks go first and the IpamState,
  // without them, last.
  std::set<net::Cidr> unwritten;
  for (const auto& [block, endpoints] : blocks) unwritten.insert(block);
  auto write_networks = [&]() -> Status {
    if (!networks) return ok();
    auto written = write_stored_networks(*client_, *networks, block_length, networks_version);
    std::lock_guard lock(mu_);
    if (!written) return write_failed(written.error(), "saving IpamState ipam", unwritten);
    networks_version_ = *written;
    saved_networks_ = std::move(*networks);
    networks_stale_ = false;
    blocks_first_ = false;
    return ok();
  };
  auto write_blocks = [&]() -> Status {
    for (const auto& [block, endpoints] : blocks) {
      const auto version = versions.find(block);
      auto written = write_stored_block(*client_, block, endpoints,
                                        version == versions.end() ? "" : version->second);
      std::lock_guard lock(mu_);
      if (!written) {
        return write_failed(written.error(), "saving IpamBlock " + fabric::ipam::block_name(block),
                            unwritten);
      }
      unwritten.erase(block);
      if (written->empty()) {
        block_versions_.erase(block);
      } else {
        block_versions_[block] = *written;
      }
    }
    return ok();
  };
  if (blocks_first) {
    FED_TRY(write_blocks());
    return write_networks();
  }
  FED_TRY(write_networks());
  return write_blocks();
}

Status ClusterIpam::write_failed(const kube::ApiError& error, const std::string& what,
                                 const std::set<net::Cidr>& blocks) {
  std::string message = what + ": " + error.to_error().message();
  dirty_blocks_.insert(blocks.begin(), blocks.end());
  if (error.code() == ErrorCode::Conflict) {
    // Only this class writes, one write at a time, so the conflict came from outside.
    lost_through_ = changes_;
    auto reloaded = load();
    message += reloaded ? "; reloaded the stored state, the next pass starts from it"
                        : "; reloading it failed too: " + reloaded.error().message();
  }
  return fail(error.code(), message);
}

}  // namespace fed::federation
