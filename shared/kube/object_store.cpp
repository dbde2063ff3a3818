#include "shared/kube/object_store.hpp"

#include <mutex>

namespace fed::kube {
namespace {

std::string metadata_string(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return {};
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return {};
  auto it = md->find(key);
  return it != md->end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string object_key(const nlohmann::json& object) {
  const std::string ns = metadata_string(object, "namespace");
  const std::string name = metadata_string(object, "name");
  return ns.empty() ? name : ns + "/" + name;
}

Request request_for(const nlohmann::json& object) {
  return Request{metadata_string(object, "namespace"), metadata_string(object, "name")};
}

ObjectPtr ObjectStore::get(std::string_view key) const {
  std::shared_lock lock(mu_);
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

ObjectPtr ObjectStore::get(std::string_view ns, std::string_view name) const {
  if (ns.empty()) return get(name);
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  return get(key);
}

std::vector<ObjectPtr> ObjectStore::list() const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(objects_.size());
  for (const auto& [k, v] : objects_) out.push_back(v);
  return out;
}

std::vector<ObjectPtr> ObjectStore::list(std::string_view ns, const LabelSelector& selector) const {
  std::vector<ObjectPtr> out;
  auto keep = [&](const ObjectPtr& o) {
    if (selector.empty()) return true;
    const nlohmann::json& obj = *o;
    auto md = obj.find("metadata");
    if (md == obj.end() || !md->is_object()) return selector.matches(Labels{});
    auto labels = md->find("labels");
    return selector.matches_json(labels == md->end() ? nlohmann::json() : *labels);
  };
  std::shared_lock lock(mu_);
  if (ns.empty()) {
    for (const auto& [k, v] : objects_) {
      if (keep(v)) out.push_back(v);
    }
    return out;
  }
  // Keys of one namespace are contiguous: "ns/" .. "ns0" ('0' follows '/').
  const std::string from = std::string(ns) + "/";
  for (auto it = objects_.lower_bound(from); it != objects_.end(); ++it) {
    if (it->first.compare(0, from.size(), from) != 0) break;
    if (keep(it->second)) out.push_back(it->second);
  }
  return out;
}

std::vector<std::string> ObjectStore::keys() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  out.reserve(objects_.size());
  for (const auto& [k, v] : objects_) out.push_back(k);
  return out;
}

std::size_t ObjectStore::size() const {
  std::shared_lock lock(mu_);
  return objects_.size();
}

ObjectPtr ObjectStore::upsert(ObjectPtr object) {
  std::string key = object_key(*object);
  std::unique_lock lock(mu_);
  auto& slot = objects_[std::move(key)];
  return std::exchange(slot, std::move(object));
}

ObjectPtr ObjectStore::erase(std::string_view key) {
  std::unique_lock lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return nullptr;
  ObjectPtr old = std::move(it->second);
  objects_.erase(it);
  return old;
}

ObjectStore::ReplaceResult ObjectStore::replace(std::vector<ObjectPtr> objects) {
  std::map<std::string, ObjectPtr, std::less<>> next;
  for (auto& o : objects) next[object_key(*o)] = std::move(o);
  ReplaceResult r;
  std::unique_lock lock(mu_);
  for (const auto& [k, v] : next) {
    auto it = objects_.find(k);
    if (it == objects_.end()) {
      r.added.push_back(v);
    } else if (metadata_string(*it->second, "resourceVersion") !=
                   metadata_string(*v, "resourceVersion") ||
               metadata_string(*v, "resourceVersion").empty()) {
      r.updated.emplace_back(it->second, v);
    }
  }
  for (const auto& [k, v] : objects_) {
    if (next.find(k) == next.end()) r.deleted.push_back(v);
  }
  objects_ = std::move(next);
  return r;
}

}  // namespace fed::kube
