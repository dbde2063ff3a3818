#include "agent/node/nat_mapping_status.hpp"

#include <nlohmann/json.hpp>

#include "shared/fedapi/group.hpp"
#include "shared/fedapi/nat_mapping.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::federation {

NatMappingStatusReporter::NatMappingStatusReporter(std::shared_ptr<kube::DynamicClient> client,
                                                   std::string node)
    : client_(std::move(client)), node_(std::move(node)) {
  kube::ControllerOptions options;
  options.name = "natmapping-status";
  controller_ = std::make_unique<kube::Controller>(*this, std::move(options));
}

NatMappingStatusReporter::~NatMappingStatusReporter() {
  stop();
}

Status NatMappingStatusReporter::start() {
  return controller_->start();
}

void NatMappingStatusReporter::stop() {
  controller_->stop();
}

void NatMappingStatusReporter::applied(const std::map<std::string, LoadedNatMapping>& installed,
                                       std::chrono::system_clock::time_point when) {
  std::vector<std::string> changed;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, loaded] : installed) {
      auto written = written_.find(name);
      if (written != written_.end() && written->second == loaded) continue;
      auto pending = pending_.find(name);
      if (pending != pending_.end() && pending->second.loaded == loaded) continue;
      pending_[name] = Report{loaded, when};
      changed.push_back(name);
    }
    // Gone from the cluster: nothing to report on, and a new one of the name starts afresh.
    std::erase_if(written_, [&](const auto& w) { return !installed.contains(w.first); });
  }
  for (const auto& name : changed) controller_->queue().add(kube::Request{"", name});
}

Result<kube::Requeue> NatMappingStatusReporter::reconcile(const kube::Request& request) {
  Report report;
  {
    std::lock_guard lock(mu_);
    auto it = pending_.find(request.name);
    if (it == pending_.end()) return kube::Requeue{};
    report = it->second;
  }
  fedapi::NatMappingStatus status;
  status.gateway_node = node_;
  status.applied = report.loaded.entries;
  status.observed_generation = report.loaded.generation;
  status.applied_time = util::format_rfc3339_micros(report.when);
  status.conditions.push_back(fedapi::Condition{
      "Applied", "True", "RulesInstalled",
      "the gateway's nat table holds the " + std::to_string(report.loaded.entries) +
          " DNAT rules of generation " + std::to_string(report.loaded.generation),
      util::format_rfc3339(report.when), report.loaded.generation});
  const nlohmann::json patch{{"status", status}};
  auto written = client_->patch_status(fedapi::ref(fedapi::kNatMapping, request.name),
                                       kube::PatchType::Merge, patch.dump());
  if (!written && !written.error().is_not_found()) return written.error().to_error();
  std::lock_guard lock(mu_);
  auto it = pending_.find(request.name);
  // A newer install queued meanwhile stays pending (its request is in the queue).
  if (it != pending_.end() && it->second.loaded == report.loaded) pending_.erase(it);
  if (written) written_[request.name] = report.loaded;
  return kube::Requeue{};
}

}  // namespace fed::federation
