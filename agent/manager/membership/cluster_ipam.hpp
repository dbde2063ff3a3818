#pragma once
// One cluster's IPAM as the manager keeps it: the Ipam restored from the cluster's IpamState
// "ipam" object, installed with the cluster's own ranges, and written back after every change,
// so a restarted manager allocates nothing twice and loses no mapping (spec 002 §2.5).
//
// The object holds the whole state (about 50 bytes per mapping), so writes are group commits:
// one in flight, and every change made meanwhile goes into the next. A burst of endpoint
// mappings then costs a few writes, not one per mapping.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

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
  static Result<std::unique_ptr<ClusterIpam>> open(std::shared_ptr<kube::DynamicClient> client,
                                                   const ClusterInfo& info, bool persist = true);

  // Reloads the persisted state, installs again and saves: what a manager that starts leading
  // does before its controllers run, so that it allocates from what the previous leader
  // stored, not from what it read when it started.
  Status resume();

  // Every controller that uses ipam() holds mutex() meanwhile: the host's IPAM is shared by
  // the membership and endpoint-mapping controllers.
  std::mutex& mutex() { return mu_; }
  fabric::ipam::Ipam& ipam() { return ipam_; }
  const fabric::ipam::LocalNetworks& local() const { return local_; }

  // The caller holds mutex() and has just changed (or may have changed) the IPAM: names that
  // change for save().
  std::uint64_t ticket() { return ++changes_; }

  // The caller does not hold mutex(). Returns once the state including change `ticket` is
  // stored (by this caller's write or one it shared). A write happens only when the state
  // differs from what was last read or written, and is conditional on the resourceVersion:
  // Conflict when someone else changed (or created) the object — another manager, e.g. one
  // killed but still running — and then the state is reloaded from the API. That drops every
  // change not yet stored, so their save() fails with Conflict too and their callers' retries
  // start from what is stored instead of failing forever.
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
  ClusterIpam(std::shared_ptr<kube::DynamicClient> client, ClusterInfo info)
      : client_(std::move(client)), info_(std::move(info)), commit_([this] { return write(); }) {}
  // Which side's addresses of a peer's pod translate_peer_pod() gives.
  enum class PodView { Ours, Peers };
  // A peer pod's address moved from one view of its PodCIDR to the other (NETMAP; our remap
  // equals its PodCIDR when not remapped); nullopt when `ip` is not in the source view.
  std::optional<std::string> translate_peer_pod(std::string_view cluster_id, std::string_view ip,
                                                PodView to);
  // Restores the stored state (if any) and installs the cluster's ranges (mutex() held).
  Status load();
  // The group commit's flush: writes the current state if it changed.
  Status write();

  std::shared_ptr<kube::DynamicClient> client_;
  ClusterInfo info_;
  fabric::ipam::Ipam ipam_;
  fabric::ipam::LocalNetworks local_;
  fabric::ipam::IpamState saved_;
  std::string resource_version_;    // "" while the object does not exist
  std::uint64_t changes_ = 0;       // tickets handed out
  std::uint64_t lost_through_ = 0;  // tickets whose changes a reload dropped
  std::mutex mu_;
  util::GroupCommit commit_;
};

}  // namespace fed::federation
