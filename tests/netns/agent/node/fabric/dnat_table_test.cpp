// The nftables back end of the DNAT maps on a real kernel: what it writes reads back the same,
// and the ruleset generation it watches moves with every transaction, the agent's or anyone's.
#include <doctest/doctest.h>

#include "agent/node/os/linux/netns_scope.hpp"
#include "agent/node/os/linux/nft_dnat_table.hpp"
#include "tests/netns/agent/node/fabric/lab.hpp"

using namespace fed::fabric::netns_test;
using fed::os::Cidr;
using fed::os::Ipv4;

TEST_CASE("nftables DNAT maps: written, read back, and the generation moves with each change") {
  require_prerequisites();
  Lab lab;
  lab.add_ns("g");
  auto scope = fed::os::NetnsScope::enter_named(lab.ns("g"));
  REQUIRE(scope);
  fed::os::NftDnatTable table;
  auto empty = table.read();
  REQUIRE(empty);
  CHECK_FALSE(empty->table);
  auto g0 = table.generation();
  REQUIRE(g0);

  fed::os::DnatChanges create;
  create.ensure_table = create.rewrite_rules = true;
  create.create_maps = {"peer_b_e70c2de5"};
  create.elements.push_back(
      {"peer_b_e70c2de5",
       {},
       {{Ipv4::parse("10.129.0.1")->value, Ipv4::parse("10.2.0.140")->value},
        {Ipv4::parse("10.129.0.2")->value, Ipv4::parse("10.2.0.141")->value}}});
  create.rules.push_back(
      {"peer_b_e70c2de5", *Cidr::parse("10.2.0.0/24"), *Cidr::parse("10.129.0.0/16")});
  REQUIRE(table.apply(create));
  auto g1 = table.generation();
  REQUIRE(g1);
  CHECK(*g1 != *g0);

  auto back = table.read();
  REQUIRE(back);
  CHECK(back->table);
  CHECK(back->chain_ok);
  CHECK_FALSE(back->foreign);
  CHECK(back->rules == create.rules);
  CHECK(back->maps.at("peer_b_e70c2de5").size() == 2);
  CHECK(*table.generation() == *g1);  // reading changes nothing

  lab.run("g", "nft add table ip someone_else");
  CHECK(*table.generation() != *g1);

  fed::os::DnatChanges gone;
  gone.delete_table = true;
  REQUIRE(table.apply(gone));
  auto after = table.read();
  REQUIRE(after);
  CHECK_FALSE(after->table);
  // A transaction nft refuses (a map that is not there) fails whole and names nftables.
  fed::os::DnatChanges bad;
  bad.elements.push_back({"peer_none", {Ipv4::parse("10.129.0.1")->value}, {}});
  auto refused = table.apply(bad);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message().find("nftables") != std::string::npos);
}
