#pragma once
// One cluster's IPAM as the manager keeps it: the Ipam restored from the cluster's IpamState
// "ipam" object, installed with the cluster's own ranges, and written back after every change,
// so a restarted manager allocates nothing twice and loses no mapping (spec 002 §2.5).

#include <memory>
#include <mutex>
#include <string>

#include "fabric/ipam/ipam.hpp"
#include "federation/cluster_info.hpp"
#include "kube/dynamic_client.hpp"
#include "result/result.hpp"

namespace fed::federation {

class ClusterIpam final {
 public:
  // Restores the persisted state (if any), installs `info`'s PodCIDR and ServiceCIDR (the
  // ExternalCIDR is chosen on the first install) and saves. Invalid when the persisted state
  // contradicts `info` (another PodCIDR) or is corrupt.
  static Result<std::unique_ptr<ClusterIpam>> open(std::shared_ptr<kube::DynamicClient> client,
                                                   const ClusterInfo& info);

  // Every controller that uses ipam() and save() holds mutex() meanwhile: the host's IPAM is
  // shared by the membership and endpoint-mapping controllers.
  std::mutex& mutex() { return mu_; }
  fabric::ipam::Ipam& ipam() { return ipam_; }
  const fabric::ipam::LocalNetworks& local() const { return local_; }

  // Writes the state when it differs from what was last read or written. The write is
  // conditional on the resourceVersion: Conflict when someone else changed (or created) the
  // object — another manager, e.g. one killed but still running — and then the state is
  // reloaded from the API, dropping this pass's unsaved changes, so the caller's retry starts
  // from what is stored instead of failing forever.
  Status save();

 private:
  ClusterIpam(std::shared_ptr<kube::DynamicClient> client, ClusterInfo info)
      : client_(std::move(client)), info_(std::move(info)) {}
  // Restores the stored state (if any) and installs the cluster's ranges.
  Status load();

  std::shared_ptr<kube::DynamicClient> client_;
  ClusterInfo info_;
  fabric::ipam::Ipam ipam_;
  fabric::ipam::LocalNetworks local_;
  fabric::ipam::IpamState saved_;
  std::string resource_version_;  // "" while the object does not exist
  std::mutex mu_;
};

}  // namespace fed::federation
