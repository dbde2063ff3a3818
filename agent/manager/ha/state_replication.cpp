#include "agent/manager/ha/state_replication.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/ha/replicated_kinds.hpp"
#include "agent/manager/ha/state_copier.hpp"
#include "agent/manager/ha/state_restore.hpp"

namespace fed::ha {
namespace {

using KindCaches = std::vector<std::pair<const ReplicatedKind*, const kube::Informer*>>;

// The replicated objects as the copiers' informers hold them: warm on a standby, so a
// takeover plans its restore without listing the host (docs/HA-STATE.md "Taking over").
Result<LiveObjects> cached_objects(const KindCaches& caches) {
  LiveObjects live;
  for (const auto& [kind, informer] : caches) {
    if (!informer->has_synced()) {
      return fail(ErrorCode::Unavailable, kind->key_kind() + ": not cached yet");
    }
    for (const auto& object : informer->store().list()) {
      live.emplace_back(state_key_of(*kind, *object), typed(*kind, *object));
    }
  }
  return live;
}

}  // namespace

void add_state_replication(kube::ControllerManager& manager, etcd::EtcdClient& etcd,
                           FenceFunction fence) {
  auto& store = manager.own(std::make_unique<StateStore>(etcd, std::move(fence)));
  auto& mirror = manager.own(std::make_unique<StateMirror>());
  auto& commits = manager.own(std::make_unique<StateCommitRecorder>(manager.client()));
  auto& caches = manager.own(std::make_unique<KindCaches>());
  manager.add_runnable("state restore", [&manager, &store, &mirror, &commits, &caches]() -> Status {
    FED_ASSIGN_OR_RETURN(auto summary,
                         restore_host_state(*manager.client(), store, mirror,
                                            [&caches] { return cached_objects(caches); }));
    spdlog::info("manager: {}", to_string(summary));
    return commits.load();
  });
  for (const auto& kind : replicated_kinds()) {
    kube::InformerOptions options;
    options.label_selector = kind.label_selector;
    kube::Informer& informer = manager.informer(kind.collection, std::move(options));
    caches.emplace_back(&kind, &informer);
    auto& copier =
        manager.own(std::make_unique<StateCopier>(kind, informer, store, mirror, commits));
    // One worker per kind: its copies reach etcd in the order they were seen.
    manager.add_controller(copier, "state-copy " + kind.key_kind(), 1).watch(informer);
  }
}

}  // namespace fed::ha
