#include "agent/manager/ha/state_replication.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/ha/replicated_kinds.hpp"
#include "agent/manager/ha/state_copier.hpp"
#include "agent/manager/ha/state_restore.hpp"

namespace fed::ha {

void add_state_replication(kube::ControllerManager& manager, etcd::EtcdClient& etcd,
                           FenceFunction fence) {
  auto& store = manager.own(std::make_unique<StateStore>(etcd, std::move(fence)));
  auto& mirror = manager.own(std::make_unique<StateMirror>());
  auto& commits = manager.own(std::make_unique<StateCommitRecorder>(manager.client()));
  manager.add_runnable("state restore", [&manager, &store, &mirror, &commits]() -> Status {
    FED_ASSIGN_OR_RETURN(auto summary, restore_host_state(*manager.client(), store, mirror));
    spdlog::info("manager: {}", to_string(summary));
    return commits.load();
  });
  for (const auto& kind : replicated_kinds()) {
    kube::InformerOptions options;
    options.label_selector = kind.label_selector;
    kube::Informer& informer = manager.informer(kind.collection, std::move(options));
    auto& copier =
        manager.own(std::make_unique<StateCopier>(kind, informer, store, mirror, commits));
    // One worker per kind: its copies reach etcd in the order they were seen.
    manager.add_controller(copier, "state-copy " + kind.key_kind(), 1).watch(informer);
  }
}

}  // namespace fed::ha
