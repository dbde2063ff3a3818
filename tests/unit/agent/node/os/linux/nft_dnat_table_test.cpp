#include "agent/node/os/linux/nft_dnat_table.hpp"

#include <doctest/doctest.h>

using namespace fed::os;

namespace {

std::uint32_t ip(const char* s) {
  return Ipv4::parse(s)->value;
}
Cidr cidr(const char* s) {
  return *Cidr::parse(s);
}

}  // namespace

TEST_CASE("the script: one transaction in nft's order, elements in one command per map") {
  DnatChanges ch;
  ch.delete_table = true;
  ch.ensure_table = true;
  ch.rewrite_rules = true;
  ch.delete_maps = {"peer_old_00000000"};
  ch.create_maps = {"peer_b_e70c2de5"};
  ch.elements.push_back(
      {"peer_b_e70c2de5",
       {ip("192.168.10.9")},
       {{ip("192.168.10.45"), ip("10.0.0.77")}, {ip("192.168.10.46"), ip("10.0.0.78")}}});
  ch.rules.push_back({"peer_b_e70c2de5", cidr("10.0.0.0/24"), cidr("192.168.10.0/24")});
  CHECK(dnat_script(ch) ==
        "delete table ip fed\n"
        "add table ip fed\n"
        "add chain ip fed prerouting { type nat hook prerouting priority -101; policy accept; }\n"
        "flush chain ip fed prerouting\n"
        "delete map ip fed peer_old_00000000\n"
        "add map ip fed peer_b_e70c2de5 { type ipv4_addr : ipv4_addr; }\n"
        "delete element ip fed peer_b_e70c2de5 { 192.168.10.9 }\n"
        "add element ip fed peer_b_e70c2de5 { 192.168.10.45 : 10.0.0.77, 192.168.10.46 : "
        "10.0.0.78 }\n"
        "add rule ip fed prerouting ip saddr 10.0.0.0/24 ip daddr 192.168.10.0/24 dnat to ip daddr "
        "map @peer_b_e70c2de5\n");
}

TEST_CASE("the listing nft prints reads back as the state that was written") {
  // `nft -j list table ip fed` after the script above (nftables 1.0.6).
  const char* listing =
      R"({"nftables": [{"metainfo": {"version": "1.0.6", "json_schema_version": 1}},
 {"table": {"family": "ip", "name": "fed", "handle": 3}},
 {"map": {"family": "ip", "name": "peer_b_e70c2de5", "table": "fed", "type": "ipv4_addr", "handle": 1,
   "map": "ipv4_addr", "elem": [["192.168.10.45", "10.0.0.77"], ["192.168.10.46", "10.0.0.78"]]}},
 {"chain": {"family": "ip", "table": "fed", "name": "prerouting", "handle": 2, "type": "nat",
   "hook": "prerouting", "prio": -101, "policy": "accept"}},
 {"rule": {"family": "ip", "table": "fed", "chain": "prerouting", "handle": 3, "expr": [
   {"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "saddr"}}, "right": {"prefix": {"addr": "10.0.0.0", "len": 24}}}},
   {"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "daddr"}}, "right": {"prefix": {"addr": "192.168.10.0", "len": 24}}}},
   {"dnat": {"addr": {"map": {"key": {"payload": {"protocol": "ip", "field": "daddr"}}, "data": "@peer_b_e70c2de5"}}}}]}}]})";
  auto st = parse_dnat_listing(listing);
  REQUIRE(st);
  CHECK(st->table);
  CHECK(st->chain_ok);
  CHECK_FALSE(st->foreign);
  REQUIRE(st->rules.size() == 1);
  CHECK(st->rules[0] == DnatRule{"peer_b_e70c2de5", cidr("10.0.0.0/24"), cidr("192.168.10.0/24")});
  REQUIRE(st->maps.size() == 1);
  const auto& m = st->maps.at("peer_b_e70c2de5");
  CHECK(m.size() == 2);
  CHECK(m.at(ip("192.168.10.46")) == ip("10.0.0.78"));
}

TEST_CASE("what the agent did not write reads as foreign or as an unknown rule") {
  const char* listing = R"({"nftables": [
 {"table": {"family": "ip", "name": "fed", "handle": 3}},
 {"set": {"family": "ip", "name": "s", "table": "fed", "type": "ipv4_addr", "handle": 4}},
 {"chain": {"family": "ip", "table": "fed", "name": "prerouting", "handle": 2, "type": "nat",
   "hook": "prerouting", "prio": -100, "policy": "accept"}},
 {"rule": {"family": "ip", "table": "fed", "chain": "prerouting", "handle": 5, "expr": [
   {"counter": {"packets": 0, "bytes": 0}}]}}]})";
  auto st = parse_dnat_listing(listing);
  REQUIRE(st);
  CHECK(st->foreign);
  CHECK_FALSE(st->chain_ok);
  REQUIRE(st->rules.size() == 1);
  CHECK(st->rules[0].map.empty());
  CHECK_FALSE(parse_dnat_listing("not json"));
}
