#include "agent/node/reconfig/config_file.hpp"

#include "shared/fedapi/manifest.hpp"
#include "shared/util/json_text.hpp"
#include "shared/util/strings.hpp"
#include "shared/util/yaml_text.hpp"

namespace fed::reconfig {

Result<KubeletConfigText> parse_kubelet_config(std::string_view text, std::string_view source) {
  FED_ASSIGN_OR_RETURN(auto docs, fedapi::parse_manifests(text, source));
  if (docs.size() != 1) {
    return Error(ErrorCode::Invalid, std::string(source) +
                                         ": expected one KubeletConfiguration "
                                         "document, found " +
                                         std::to_string(docs.size()));
  }
  nlohmann::json& config = docs.front();
  if (util::string_field(config, "kind") != "KubeletConfiguration") {
    return Error(ErrorCode::Invalid,
                 std::string(source) +
                     ": not a KubeletConfiguration (kind is missing or different); point "
                     "--kubelet-config at the file the kubelet reads with --config");
  }
  const std::string_view body = util::trim(text);
  const ConfigFormat format =
      !body.empty() && body.front() == '{' ? ConfigFormat::Json : ConfigFormat::Yaml;
  return KubeletConfigText{std::move(config), format};
}

std::string render_kubelet_config(const nlohmann::json& config, ConfigFormat format) {
  if (format == ConfigFormat::Json) return util::json_text(config, 2) + "\n";
  return util::to_yaml_text(config);
}

nlohmann::json empty_kubelet_config() {
  return {{"apiVersion", "kubelet.config.k8s.io/v1beta1"}, {"kind", "KubeletConfiguration"}};
}

}  // namespace fed::reconfig
