#pragma once
// The gateway's report on its NatMappings (docs/DATAPATH.md "Endpoint mappings at scale"): after
// a datapath pass converged, every NatMapping whose generation that pass installed is marked
// applied at the pass's end (the nat table's commit), and a worker of its own writes each one's
// status — observedGeneration, the entries installed, appliedTime in microseconds, condition
// Applied — so the datapath never waits for the API server, and a burst of passes costs one
// status write per NatMapping.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "agent/node/api_state_source.hpp"
#include "shared/kube/controller.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::federation {

class NatMappingStatusReporter final : public kube::Reconciler {
 public:
  NatMappingStatusReporter(std::shared_ptr<kube::DynamicClient> client, std::string node);
  ~NatMappingStatusReporter() override;

  Status start();
  void stop();

  // A pass that converged at `when` installed `installed` (ApiNodeStateSource::
  // loaded_nat_mappings()); queues a status write for each NatMapping not yet reported at its
  // generation.
  void applied(const std::map<std::string, LoadedNatMapping>& installed,
               std::chrono::system_clock::time_point when);

  // Writes the status of the NatMapping named in `request`.
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  struct Report {
    LoadedNatMapping loaded;
    std::chrono::system_clock::time_point when;
  };

  std::shared_ptr<kube::DynamicClient> client_;
  std::string node_;
  std::mutex mu_;
  std::map<std::string, Report> pending_;            // latest install not written yet
  std::map<std::string, LoadedNatMapping> written_;  // what each status says
  std::unique_ptr<kube::Controller> controller_;
};

}  // namespace fed::federation
