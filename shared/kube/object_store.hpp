#pragma once
// ObjectStore: the informer's thread-safe cache of objects keyed by "namespace/name" (or
// "name" when cluster-scoped). Objects are immutable shared JSON, so readers get a cheap,
// consistent snapshot without copying and without holding a lock.

#include <cstddef>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/kube/label_selector.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::kube {

using ObjectPtr = std::shared_ptr<const nlohmann::json>;

// "ns/name", or "name" for cluster-scoped objects (from metadata).
std::string object_key(const nlohmann::json& object);
// The reconcile Request of an object.
Request request_for(const nlohmann::json& object);

class ObjectStore final {
 public:
  // The object with this key, or null.
  ObjectPtr get(std::string_view key) const;
  ObjectPtr get(std::string_view ns, std::string_view name) const;
  // Every object, ordered by key.
  std::vector<ObjectPtr> list() const;
  // Objects of one namespace ("" = all), optionally filtered by a label selector.
  std::vector<ObjectPtr> list(std::string_view ns, const LabelSelector& selector = {}) const;
  std::vector<std::string> keys() const;
  std::size_t size() const;

  // Inserts or replaces by key; returns the previous object (null if new).
  ObjectPtr upsert(ObjectPtr object);
  // Removes by key; returns the removed object (null if absent).
  ObjectPtr erase(std::string_view key);

  struct ReplaceResult {
    std::vector<ObjectPtr> added;
    std::vector<std::pair<ObjectPtr, ObjectPtr>> updated;  // (old, new), resourceVersion changed
    std::vector<ObjectPtr> deleted;                        // present before, absent now
  };
  // Replaces the whole content (after a list) and reports what changed.
  ReplaceResult replace(std::vector<ObjectPtr> objects);

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, ObjectPtr, std::less<>> objects_;
};

}  // namespace fed::kube
