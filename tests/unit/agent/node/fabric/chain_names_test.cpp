#include "agent/node/fabric/chain_names.hpp"
#include "shared/util/fnv1a.hpp"

#include <doctest/doctest.h>

#include <set>

using fed::fabric::kMaxChainNameLength;
using fed::fabric::mapping_chain;

TEST_CASE("mapping chain names stay under the iptables limit and keep a readable prefix") {
  CHECK(mapping_chain("cluster-1").starts_with("FED-MAP-cluste-"));
  CHECK(mapping_chain("b").starts_with("FED-MAP-b-"));
  std::string long_id(253, 'x');
  CHECK(mapping_chain(long_id).size() <= kMaxChainNameLength);
  CHECK(mapping_chain("").size() <= kMaxChainNameLength);
  CHECK(std::string(fed::fabric::kPreroutingChain).size() <= kMaxChainNameLength);
  CHECK(std::string(fed::fabric::kPostroutingChain).size() <= kMaxChainNameLength);
}

TEST_CASE("ids sharing the part upstream Liqo kept (up to the first '-') get distinct chains") {
  std::set<std::string> names;
  for (const char* id : {"cluster-1", "cluster-2", "cluster-10", "cluster.1", "Cluster-1"}) {
    auto n = mapping_chain(id);
    CHECK(n.size() <= kMaxChainNameLength);
    CHECK(names.insert(n).second);
  }
}

TEST_CASE("names are stable: FNV-1a, not std::hash") {
  CHECK(fed::util::fnv1a32("") == 2166136261u);
  CHECK(fed::util::fnv1a32("a") == 0xe40c292cu);
  CHECK(mapping_chain("b") == "FED-MAP-b-" + std::string("e70c2de5"));
}
