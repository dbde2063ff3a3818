#include <doctest/doctest.h>

#include "agent/manager/membership/former_hosts.hpp"

namespace fed::federation {
namespace {

TEST_CASE("a member's Peerings with hosts that left are the former hosts'") {
  // c4's tunnels: with the hosts c1 (removed), c2 and c3, and its direct link with c5.
  const std::vector<std::string> peerings{"c1", "c2", "c3", "c5"};
  CHECK(former_hosts(peerings, {"c2", "c3"}, {"c4", "c5"}) == std::vector<std::string>{"c1"});
  CHECK(former_hosts(peerings, {"c1", "c2", "c3"}, {"c4", "c5"}).empty());
  // A direct link is kept while its member is one.
  CHECK(former_hosts({"c2", "c5"}, {"c2"}, {"c4", "c5"}).empty());
}

TEST_CASE("without known hosts nothing is a former host") {
  CHECK(former_hosts({"c1", "c2"}, {}, {"c4"}).empty());
}

}  // namespace
}  // namespace fed::federation
