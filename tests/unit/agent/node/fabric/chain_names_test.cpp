#include "agent/node/fabric/chain_names.hpp"
#include "shared/util/fnv1a.hpp"

#include <doctest/doctest.h>

#include <set>

using fed::fabric::kMaxChainNameLength;
using fed::fabric::mapping_map;

TEST_CASE("mapping map names are short nftables identifiers with a readable prefix") {
  CHECK(mapping_map("cluster-1").starts_with("peer_cluste_"));
  CHECK(mapping_map("b").starts_with("peer_b_"));
  std::string long_id(253, 'x');
  CHECK(mapping_map(long_id).size() <= kMaxChainNameLength);
  CHECK(mapping_map("").size() <= kMaxChainNameLength);
  CHECK(std::string(fed::fabric::kPreroutingChain).size() <= kMaxChainNameLength);
  CHECK(std::string(fed::fabric::kPostroutingChain).size() <= kMaxChainNameLength);
}

TEST_CASE("ids sharing the part upstream Liqo kept (up to the first '-') get distinct maps") {
  std::set<std::string> names;
  for (const char* id : {"cluster-1", "cluster-2", "cluster-10", "cluster.1", "Cluster-1"}) {
    auto n = mapping_map(id);
    CHECK(n.size() <= kMaxChainNameLength);
    CHECK(names.insert(n).second);
  }
}

TEST_CASE("names are stable: FNV-1a, not std::hash") {
  CHECK(fed::util::fnv1a32("") == 2166136261u);
  CHECK(fed::util::fnv1a32("a") == 0xe40c292cu);
  CHECK(mapping_map("b") == "peer_b_" + std::string("e70c2de5"));
}
