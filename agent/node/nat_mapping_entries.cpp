#include "agent/node/nat_mapping_entries.hpp"

#include <algorithm>
#include <utility>

namespace fed::federation {
namespace {

using nlohmann::json;

const json* member(const json& object, std::string_view key, json::value_t type) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it != object.end() && it->type() == type ? &*it : nullptr;
}

std::string string_member(const json* object, std::string_view key) {
  const json* s = object ? member(*object, key, json::value_t::string) : nullptr;
  return s ? s->get<std::string>() : std::string();
}

}  // namespace

NatMappingEntriesPtr parse_nat_mapping(const json& object) {
  auto out = std::make_shared<NatMappingEntries>();
  const json* metadata = member(object, "metadata", json::value_t::object);
  out->name = string_member(metadata, "name");
  if (metadata) out->generation = metadata->value("generation", std::int64_t{0});
  const json* spec = member(object, "spec", json::value_t::object);
  out->peer = string_member(spec, "clusterID");
  const json* mappings = spec ? member(*spec, "mappings", json::value_t::object) : nullptr;
  if (out->peer.empty() || mappings == nullptr) return out;
  out->entries.reserve(mappings->size());
  for (const auto& [external, endpoint] : mappings->items()) {
    auto e = net::Ipv4::parse(external);
    auto t = net::Ipv4::parse(endpoint.is_string() ? endpoint.get_ref<const std::string&>()
                                                   : std::string_view{});
    if (!e || !t) {
      out->error =
          "NatMapping " + out->name + " spec.mappings." + external + ": not an IPv4 address pair";
      out->entries.clear();
      return out;
    }
    out->entries.push_back({*e, *t});
  }
  std::sort(out->entries.begin(), out->entries.end());
  return out;
}

std::vector<NatMappingEntriesPtr> NatMappingParseCache::entries(
    const std::vector<kube::ObjectPtr>& objects) {
  std::vector<NatMappingEntriesPtr> out;
  out.reserve(objects.size());
  std::lock_guard lock(mu_);
  std::map<std::string, Parsed> seen;
  for (const auto& object : objects) {
    const json* metadata = member(*object, "metadata", json::value_t::object);
    const std::string name = string_member(metadata, "name");
    std::string version = string_member(metadata, "resourceVersion");
    auto cached = by_name_.find(name);
    NatMappingEntriesPtr parsed =
        !version.empty() && cached != by_name_.end() && cached->second.version == version
            ? cached->second.entries
            : parse_nat_mapping(*object);
    out.push_back(parsed);
    seen[name] = {std::move(version), std::move(parsed)};
  }
  by_name_ = std::move(seen);
  return out;
}

}  // namespace fed::federation
