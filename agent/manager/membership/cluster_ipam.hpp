#pragma once
// One cluster's IPAM as the manager keeps it: the Ipam restored from the cluster's IpamState
// "ipam" and IpamBlock objects (ipam_store.hpp), installed with the cluster's own ranges, and
// written back after every change, so a restarted manager allocates nothing twice and loses no
// mapping (spec 002 §2.5).
//
// A write stores what changed: the networks object when they did, and the IpamBlock of each
// address whose endpoint changed, so a mapping costs one block (about 20 kB when full) however
// many the federation holds. Writes are group commits: one in flight, and every change made
// meanwhile goes into the next. A state written by an older release (every mapping in the
// IpamState) is moved into blocks by the first write: blocks first, then the IpamState without
// them, so a crash in between loses nothing.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "agent/manager/ipam/address_blocks.hpp"
#include "agent/manager/ipam/ipam.hpp"
#include "shared/fedapi/cluster_info.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"
#include "shared/util/group_commit.hpp"

namespace fed::federation {

class ClusterIpam final {
 public:
  // Restores the persisted state (if any), installs `info`'s PodCIDR and ServiceCIDR (the
  // ExternalCIDR is chosen on the first install) and, with `persist`, saves. Invalid when the
  // persisted state contradicts `info` (another PodCIDR) or is corrupt. A standby manager opens
  // without persisting (it writes nothing) and resume()s once it leads.
  // `block_length`: the IpamBlocks' prefix length when the stored state has not chosen one.
  static Result<std::unique_ptr<ClusterIpam>> open(
      std::shared_ptr<kube::DynamicClient> client, const ClusterInfo& info, bool persist = true,
      std::uint8_t block_length = fabric::ipam::kDefaultBlockLength);

  // Reloads the persisted state, installs again and saves: what a manager that starts leading
  // does before its controllers run, so that it allocates from what the previous leader
  // stored, not from what it read when it started.
  Status resume();

  // Every controller that uses ipam() holds mutex() meanwhile: the host's IPAM is shared by
  // the membership and endpoint-mapping controllers.
  std::mutex& mutex() { return mu_; }
  fabric::ipam::Ipam& ipam() { return ipam_; }
  const fabric::ipam::LocalNetworks& local() const { return local_; }
  // The block of our ExternalCIDR that `address` is persisted in (its IpamBlock, and the
  // NatMapping of each peer it is mapped for). Fixed once installed.
  net::Cidr block_of(net::Ipv4 address) const {
    return net::Cidr::containing(address, block_length_);
  }

  // The caller holds mutex() and has just changed (or may have changed) the IPAM: names that
  // change for save().
  std::uint64_t ticket() { return ++changes_; }

  // The caller does not hold mutex(). Returns once the state including change `ticket` is
  // stored (by this caller's write or one it shared). Only changed objects are written, each
  // conditional on its resourceVersion: Conflict when someone else changed (or created) one —
  // another manager, e.g. one killed but still running — and then the state is reloaded from
  // the API. That drops every change not yet stored, so their save() fails with Conflict too
  // and their callers' retries start from what is stored instead of failing forever.
  Status save(std::uint64_t ticket);

  // How we reach pod `ip` of peer `cluster_id`: the address in our remap of its PodCIDR (the
  // address itself when not remapped). nullopt when the peer's networks are unknown or `ip` is
  // not in its PodCIDR (a hostNetwork pod). Takes mutex().
  std::optional<std::string> peer_pod_ip(std::string_view cluster_id, std::string_view ip);
  // The reverse: the peer's own address of `ip`, an address in our remap of its PodCIDR (one of
  // its pods as we see it). nullopt when `ip` is not one of its pods.
  std::optional<std::string> peer_own_ip(std::string_view cluster_id, std::string_view ip);

  // Forgets a peer (its remaps and the endpoints mapped for it) and stores that; the caller
  // does not hold mutex().
  Status remove_peer(std::string_view cluster_id);

 private:
  ClusterIpam(std::shared_ptr<kube::DynamicClient> client, ClusterInfo info,
              std::uint8_t block_length)
      : client_(std::move(client)),
        info_(std::move(info)),
        wanted_block_length_(block_length),
        commit_([this] { return write(); }) {}
  // Which side's addresses of a peer's pod translate_peer_pod() gives.
  enum class PodView { Ours, Peers };
  // A peer pod's address moved from one view of its PodCIDR to the other (NETMAP; our remap
  // equals its PodCIDR when not remapped); nullopt when `ip` is not in the source view.
  std::optional<std::string> translate_peer_pod(std::string_view cluster_id, std::string_view ip,
                                                PodView to);
  // Restores the stored state (if any) and installs the cluster's ranges (mutex() held); marks
  // what differs from the stored objects for the next write.
  Status load();
  // The group commit's flush: writes the objects whose state changed.
  Status write();
  // After a failed write (mutex() held): `blocks` are written again next time; a Conflict
  // drops every change not stored and reloads. Returns the failure, with what was done.
  Status write_failed(const kube::ApiError& error, const std::string& what,
                      const std::set<net::Cidr>& blocks);

  std::shared_ptr<kube::DynamicClient> client_;
  ClusterInfo info_;
  std::uint8_t wanted_block_length_;
  std::uint8_t block_length_ = fabric::ipam::kDefaultBlockLength;  // as stored, once loaded
  fabric::ipam::Ipam ipam_;
  fabric::ipam::LocalNetworks local_;
  fabric::ipam::IpamState saved_networks_;  // the networks as last read or written
  bool networks_stale_ = true;              // IpamState ipam must be written even if equal
  bool blocks_first_ = false;     // it still holds an older release's mappings: blocks go first
  std::string networks_version_;  // "" while IpamState ipam does not exist
  std::map<net::Cidr, std::string> block_versions_;  // the IpamBlocks that exist
  std::set<net::Cidr> dirty_blocks_;                 // to write, besides changed addresses
  std::uint64_t changes_ = 0;                        // tickets handed out
  std::uint64_t lost_through_ = 0;                   // tickets whose changes a reload dropped
  std::mutex mu_;
  util::GroupCommit commit_;
};

}  // namespace fed::federation
