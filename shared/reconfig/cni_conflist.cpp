#include "shared/reconfig/cni_conflist.hpp"

#include <nlohmann/json.hpp>

#include "shared/util/json_text.hpp"

namespace fed::reconfig {
namespace {

using nlohmann::json;

// host-local's two spellings: ranges (a list of range sets) and the older single subnet.
void collect_subnets(const json& ipam, std::vector<std::string>& out) {
  if (util::string_field(ipam, "type") != "host-local") return;
  if (ipam.contains("subnet") && ipam["subnet"].is_string()) out.push_back(ipam["subnet"]);
  for (const auto& set : ipam.value("ranges", json::array())) {
    if (!set.is_array()) continue;
    for (const auto& range : set) {
      if (range.is_object() && range.contains("subnet") && range["subnet"].is_string()) {
        out.push_back(range["subnet"]);
      }
    }
  }
}

}  // namespace

Result<CniConflist> parse_conflist(std::string_view text, std::string_view source) {
  const std::string where(source);
  auto invalid = [&](const std::string& what) {
    return Error(ErrorCode::Invalid, where + ": " + what);
  };
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return invalid("not a JSON object; expected a CNI network configuration list (.conflist)");
  }
  if (!doc.contains("cniVersion") || !doc["cniVersion"].is_string()) {
    return invalid("cniVersion is missing (e.g. \"1.0.0\")");
  }
  CniConflist out;
  out.name = util::string_field(doc, "name");
  if (out.name.empty()) return invalid("name is missing or not a string: the network needs a name");
  if (!doc.contains("plugins") || !doc["plugins"].is_array() || doc["plugins"].empty()) {
    return invalid(
        "plugins is missing or empty: a .conflist lists its plugins (a single-plugin .conf is "
        "not accepted; wrap it in {\"plugins\": [...]})");
  }
  for (std::size_t i = 0; i < doc["plugins"].size(); ++i) {
    const json& plugin = doc["plugins"][i];
    const std::string type(util::string_field(plugin, "type"));
    if (type.empty()) {
      return invalid("plugins[" + std::to_string(i) + "].type is missing or not a string");
    }
    out.plugin_types.push_back(type);
    if (plugin.contains("ipam")) collect_subnets(plugin["ipam"], out.subnets);
  }
  return out;
}

}  // namespace fed::reconfig
