#pragma once
// Replicas this process created and in which no twin pod has been made since. The pod
// reflector watches a replica's twins so that it sees a twin deleted by hand or one left over
// from a host pod that went while the manager was down. A replica the NamespaceMap controller
// has just created holds neither, and holds none until the reflector makes one: its watch can
// wait for the first pod bound for it. Offloading a namespace to 50 members used to start 50
// LIST+WATCHes at once, one per member, most of them for replicas that no pod ever uses.
//
// The invariant: while (member, replica) is in the set, no twin exists there. The NamespaceMap
// controller adds a replica when its create returns 201; the reflector takes it out before it
// makes the first twin there. A restart empties the set, so every replica is watched again.

#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace fed::offload {

class FreshReplicas final {
 public:
  void created(const std::string& member, const std::string& replica);
  bool contains(const std::string& member, const std::string& replica) const;
  // Removes (member, replica): a twin may be made there from now on, or it was deleted.
  void forget(const std::string& member, const std::string& replica);

 private:
  mutable std::mutex mu_;
  std::set<std::pair<std::string, std::string>> fresh_;
};

}  // namespace fed::offload
