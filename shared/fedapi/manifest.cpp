#include "shared/fedapi/manifest.hpp"

#include <string>

#include "shared/util/yaml_documents.hpp"

namespace fed::fedapi {

Result<std::vector<nlohmann::json>> parse_manifests(std::string_view yaml,
                                                    std::string_view source) {
  FED_ASSIGN_OR_RETURN(auto docs, util::yaml_documents(yaml, source));
  std::vector<nlohmann::json> out;
  std::size_t n = 0;
  for (auto& doc : docs) {
    ++n;
    if (doc.is_null()) continue;
    if (!doc.is_object()) {
      return fail(ErrorCode::Invalid, std::string(source) + ": document " + std::to_string(n) +
                                          " is not a mapping (expected an object manifest)");
    }
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace fed::fedapi
