#pragma once
// A NatMapping's entries, parsed once per version of the object. A gateway's NatMappings hold
// tens of thousands of entries over a hundred-odd objects, and each pass builds the desired
// state twice (tunnel, datapath): parsing every entry every time cost 7 ms a build at 30 000
// entries, more than the rest of the pass, for the one object a mapping changed.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/node/fabric/node_state.hpp"
#include "shared/kube/object_store.hpp"

namespace fed::federation {

struct NatMappingEntries {
  std::string name;
  std::string peer;  // spec.clusterID; "" when the object names none (it is left out)
  std::int64_t generation = 0;
  std::vector<fabric::NatMapping> entries;  // sorted by external, then endpoint address
  // Not empty when an entry is no address pair: building the peer's state fails with it.
  std::string error;
};
using NatMappingEntriesPtr = std::shared_ptr<const NatMappingEntries>;

NatMappingEntriesPtr parse_nat_mapping(const nlohmann::json& object);

// Parses each NatMapping the first time it is seen at a resourceVersion; an object without one
// (tests, files) is parsed every time. Thread-safe: the tunnel and the datapath ask from the
// same worker, pending() from another.
class NatMappingParseCache {
 public:
  std::vector<NatMappingEntriesPtr> entries(const std::vector<kube::ObjectPtr>& objects);

 private:
  struct Parsed {
    std::string version;
    NatMappingEntriesPtr entries;
  };
  std::mutex mu_;
  std::map<std::string, Parsed> by_name_;  // the objects of the last call only
};

}  // namespace fed::federation
