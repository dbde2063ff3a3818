#include "agent/node/nat_mapping_entries.hpp"

#include <algorithm>
#include <utility>

#include "shared/util/json_text.hpp"

namespace fed::federation {
using nlohmann::json;
using util::field;

NatMappingEntriesPtr parse_nat_mapping(const json& object) {
  auto out = std::make_shared<NatMappingEntries>();
  const json& metadata = field(object, "metadata");
  out->name = util::string_field(metadata, "name");
  if (const json& g = field(metadata, "generation"); g.is_number_integer()) {
    out->generation = g.get<std::int64_t>();
  }
  const json& spec = field(object, "spec");
  out->peer = util::string_field(spec, "clusterID");
  const json& mappings = field(spec, "mappings");
  if (out->peer.empty() || !mappings.is_object()) return out;
  out->entries.reserve(mappings.size());
  for (const auto& [external, endpoint] : mappings.items()) {
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
    const json& metadata = field(*object, "metadata");
    const std::string name(util::string_field(metadata, "name"));
    std::string version(util::string_field(metadata, "resourceVersion"));
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
