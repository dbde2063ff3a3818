#include "agent/node/fabric/chain_names.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>

#include "shared/util/fnv1a.hpp"

namespace fed::fabric {

std::string mapping_map(std::string_view cluster_id) {
  constexpr std::size_t kReadable = 6;
  std::string readable;
  for (unsigned char c : cluster_id) {
    if (readable.size() == kReadable) break;
    if (std::isalnum(c)) readable.push_back(static_cast<char>(c));
  }
  char hash[9];
  std::snprintf(hash, sizeof hash, "%08x", util::fnv1a32(cluster_id));
  return "peer_" + readable + "_" + hash;
}

}  // namespace fed::fabric
