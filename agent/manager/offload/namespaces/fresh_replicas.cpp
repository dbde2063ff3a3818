#include "agent/manager/offload/namespaces/fresh_replicas.hpp"

namespace fed::offload {

void FreshReplicas::created(const std::string& member, const std::string& replica) {
  std::lock_guard lock(mu_);
  fresh_.emplace(member, replica);
}

bool FreshReplicas::contains(const std::string& member, const std::string& replica) const {
  std::lock_guard lock(mu_);
  return fresh_.count({member, replica}) != 0;
}

void FreshReplicas::forget(const std::string& member, const std::string& replica) {
  std::lock_guard lock(mu_);
  fresh_.erase({member, replica});
}

}  // namespace fed::offload
