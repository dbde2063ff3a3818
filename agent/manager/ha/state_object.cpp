#include "agent/manager/ha/state_object.hpp"

#include <map>

namespace fed::ha {

namespace {

// The key's stand-in for "no namespace": a namespace is a DNS label, which never is "_".
constexpr std::string_view kNoNamespace = "_";

// Every key is prefix + parts; a prefix without its trailing '/' would glue the kind onto it.
std::string normalized(std::string_view prefix) {
  std::string p(prefix);
  if (p.empty() || p.back() != '/') p += '/';
  return p;
}

Unexpected invalid_key(std::string_view etcd_key, std::string_view why) {
  return fail(ErrorCode::Invalid, "state key " + std::string(etcd_key) + ": " + std::string(why));
}

// The metadata kept: set by the object's writer and the same on every host. The rest is assigned
// by the API server, or (ownerReferences) names objects by one server's uids.
constexpr std::string_view kKeptMetadata[] = {"name", "namespace", "labels", "annotations",
                                              "finalizers"};

}  // namespace

std::string to_string(const StateKey& key) {
  return key.kind + "/" + (key.ns.empty() ? std::string(kNoNamespace) : key.ns) + "/" + key.name;
}

Status check_state_key(const StateKey& key) {
  const auto bad = [&](std::string_view why) {
    return fail(ErrorCode::Invalid, "state key " + to_string(key) + ": " + std::string(why));
  };
  if (key.kind.empty()) return bad("kind is empty");
  if (key.name.empty()) return bad("name is empty");
  for (const std::string* part : {&key.kind, &key.ns, &key.name}) {
    if (part->find('/') != std::string::npos) return bad("'" + *part + "' contains '/'");
  }
  if (key.ns == kNoNamespace) return bad("namespace '_' stands for none in etcd keys");
  return ok();
}

std::string state_etcd_key(std::string_view prefix, const StateKey& key) {
  return normalized(prefix) + to_string(key);
}

Result<StateKey> parse_state_etcd_key(std::string_view prefix, std::string_view etcd_key) {
  const std::string p = normalized(prefix);
  if (!etcd_key.starts_with(p)) return invalid_key(etcd_key, "not under " + p);
  std::string_view rest = etcd_key.substr(p.size());
  std::vector<std::string> parts;
  for (;;) {
    const auto slash = rest.find('/');
    parts.emplace_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  if (parts.size() != 3) return invalid_key(etcd_key, "want <kind>/<namespace or _>/<name>");
  if (parts[0].empty() || parts[2].empty()) return invalid_key(etcd_key, "empty kind or name");
  if (parts[1].empty()) return invalid_key(etcd_key, "empty namespace (want _ for none)");
  return StateKey{parts[0], parts[1] == kNoNamespace ? "" : parts[1], parts[2]};
}

std::string prefix_range_end(std::string_view prefix) {
  // etcd's rule: the smallest key greater than every key with the prefix. Trailing 0xff bytes
  // cannot be incremented and are dropped; an all-0xff prefix means "to the end" ("\0").
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

nlohmann::json stored_form(const nlohmann::json& object) {
  if (!object.is_object()) return object;
  nlohmann::json out = object;
  out.erase("metadata");
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return out;
  nlohmann::json kept = nlohmann::json::object();
  for (const auto field : kKeptMetadata) {
    const auto it = meta->find(field);
    if (it == meta->end() || it->is_null()) continue;
    // An API server omits empty maps and lists; one may return {} where another omits it.
    if ((it->is_object() || it->is_array()) && it->empty()) continue;
    kept[std::string(field)] = *it;
  }
  out["metadata"] = std::move(kept);
  return out;
}

bool same_state(const nlohmann::json& stored, const nlohmann::json& live) {
  return stored_form(live) == stored;
}

RestorePlan plan_restore(const std::vector<std::pair<StateKey, nlohmann::json>>& stored,
                         const std::vector<std::pair<StateKey, nlohmann::json>>& live) {
  // Ordered maps: the plan's order is the keys' order, whatever order the lists came in.
  std::map<StateKey, const nlohmann::json*> want, have;
  for (const auto& [key, object] : stored) want[key] = &object;
  for (const auto& [key, object] : live) have[key] = &object;

  RestorePlan plan;
  for (const auto& [key, object] : want) {
    const auto it = have.find(key);
    if (it == have.end()) {
      plan.create.emplace_back(key, stored_form(*object));
      continue;
    }
    const nlohmann::json target = stored_form(*object);
    if (same_state(target, *it->second)) continue;
    nlohmann::json update = target;
    const auto& live_meta = it->second->value("metadata", nlohmann::json::object());
    if (live_meta.contains("resourceVersion")) {
      update["metadata"]["resourceVersion"] = live_meta.at("resourceVersion");
    }
    nlohmann::json live_form = stored_form(*it->second);
    live_form.erase("status");
    nlohmann::json main_part = target;
    main_part.erase("status");
    (main_part == live_form ? plan.update_status : plan.update)
        .emplace_back(key, std::move(update));
  }
  for (const auto& [key, object] : have) {
    if (!want.contains(key)) plan.remove.push_back(key);
  }
  return plan;
}

}  // namespace fed::ha
