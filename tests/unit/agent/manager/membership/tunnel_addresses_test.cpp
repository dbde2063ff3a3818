// Which tunnel address a member or an added host gets (agent/manager/membership/tunnel_addresses).
#include "agent/manager/membership/tunnel_addresses.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

namespace fed::federation {

TEST_CASE("tunnel addresses: members from 169.254.64.2, added hosts from 169.254.127.1") {
  CHECK(next_member_tunnel_address({}) == "169.254.64.2");
  CHECK(next_member_tunnel_address({"169.254.64.2", "169.254.64.3", ""}) == "169.254.64.4");
  // The first host's address is never a member's, and a gap is filled first.
  CHECK(next_member_tunnel_address({"169.254.64.1", "169.254.64.3"}) == "169.254.64.2");
  CHECK(next_member_tunnel_address({"169.254.64.2"}) == "169.254.64.3");
  CHECK(next_host_tunnel_address({}) == "169.254.127.1");
  CHECK(next_host_tunnel_address({"169.254.64.1", "169.254.127.1"}) == "169.254.127.2");
}

TEST_CASE("tunnel addresses: the ranges end where the other begins, and full is said") {
  std::set<std::string> members;
  for (int c = 64; c <= 126; ++c) {
    for (int d = 0; d <= 255; ++d)
      members.insert("169.254." + std::to_string(c) + "." + std::to_string(d));
  }
  members.erase("169.254.126.254");
  CHECK(next_member_tunnel_address(members) == "169.254.126.254");
  members.insert("169.254.126.254");
  CHECK_FALSE(next_member_tunnel_address(members).has_value());

  std::set<std::string> hosts;
  for (int d = 1; d <= 254; ++d) hosts.insert("169.254.127." + std::to_string(d));
  CHECK_FALSE(next_host_tunnel_address(hosts).has_value());
}

TEST_CASE("tunnel addresses: read from the annotation, empty without one") {
  using nlohmann::json;
  CHECK(tunnel_address_of(
            json{{"metadata",
                  {{"name", "c2"},
                   {"annotations", {{"kubectl-fed.io/tunnel-address", "169.254.127.1"}}}}}}) ==
        "169.254.127.1");
  CHECK(tunnel_address_of(json{{"metadata", {{"name", "c2"}}}}).empty());
  CHECK(tunnel_address_of(json::object()).empty());
}

}  // namespace fed::federation
