// AddressPool (ExternalCIDR addresses) and PrefixMap (networks): the structures under the IPAM.
#include <doctest/doctest.h>

#include "agent/manager/ipam/address_pool.hpp"
#include "agent/manager/ipam/prefix_map.hpp"
#include "tests/unit/agent/manager/ipam/ipam_test_util.hpp"

using fed::fabric::ipam::AddressPool;
using fed::fabric::ipam::Owner;
using fed::fabric::ipam::PrefixMap;
using fed::test::cidr;
using fed::test::ip;

TEST_CASE("AddressPool hands out the lowest free address and skips network and broadcast") {
  AddressPool pool(cidr("10.0.0.0/29"));
  CHECK(pool.capacity() == 6);
  for (const char* want :
       {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"}) {
    auto got = pool.allocate();
    REQUIRE(got.has_value());
    CHECK(*got == ip(want));
  }
  CHECK_FALSE(pool.allocate().has_value());
  CHECK(pool.used() == 6);
  CHECK(pool.release(ip("10.0.0.4")));
  CHECK(pool.release(ip("10.0.0.2")));
  CHECK_FALSE(pool.release(ip("10.0.0.2")));  // already free
  CHECK_FALSE(pool.release(ip("10.0.0.7")));  // broadcast: never handed out
  CHECK(*pool.allocate() == ip("10.0.0.2"));
  CHECK(*pool.allocate() == ip("10.0.0.4"));
  CHECK(pool.used() == 6);
}

TEST_CASE("AddressPool merges released neighbours and reserves given addresses") {
  AddressPool pool(cidr("10.0.0.0/24"));
  CHECK(pool.reserve(ip("10.0.0.1")));
  CHECK(pool.reserve(ip("10.0.0.3")));
  CHECK_FALSE(pool.reserve(ip("10.0.0.3")));  // taken twice: a double allocation
  CHECK_FALSE(pool.reserve(ip("10.0.0.0")));  // network address
  CHECK_FALSE(pool.reserve(ip("10.0.1.1")));  // outside
  CHECK(*pool.allocate() == ip("10.0.0.2"));  // the hole between the reserved ones
  CHECK(*pool.allocate() == ip("10.0.0.4"));
  for (const char* a : {"10.0.0.2", "10.0.0.1", "10.0.0.4", "10.0.0.3"}) CHECK(pool.release(ip(a)));
  CHECK(pool.used() == 0);
  CHECK(*pool.allocate() == ip("10.0.0.1"));
}

TEST_CASE("AddressPool covers /31, /32 and the top of the address space") {
  AddressPool two(cidr("10.0.0.0/31"));
  CHECK(two.capacity() == 2);
  CHECK(*two.allocate() == ip("10.0.0.0"));
  AddressPool top(cidr("255.255.255.255/32"));
  CHECK(*top.allocate() == ip("255.255.255.255"));
  CHECK(top.release(ip("255.255.255.255")));
  CHECK(*top.allocate() == ip("255.255.255.255"));
}

TEST_CASE("PrefixMap finds overlaps and the first free aligned network") {
  PrefixMap map;
  map.insert({cidr("10.0.0.0/24"), Owner::LocalPod, ""});
  map.insert({cidr("10.0.2.0/23"), Owner::PeerPod, "c2"});
  CHECK(map.find_overlap(cidr("10.0.0.128/25"))->cidr == cidr("10.0.0.0/24"));
  CHECK(map.find_overlap(cidr("10.0.0.0/8"))->cidr == cidr("10.0.2.0/23"));
  CHECK(map.find_overlap(cidr("10.0.1.0/24")) == nullptr);
  CHECK(map.find_overlap(cidr("10.0.4.0/24")) == nullptr);
  CHECK(*map.first_free(cidr("10.0.0.0/8"), 24) == cidr("10.0.1.0/24"));
  CHECK(*map.first_free(cidr("10.0.0.0/8"), 23) == cidr("10.0.4.0/23"));
  CHECK(*map.first_free(cidr("10.0.0.0/8"), 16) == cidr("10.1.0.0/16"));
  CHECK_FALSE(map.first_free(cidr("10.0.0.0/23"), 23).has_value());
  CHECK_FALSE(map.first_free(cidr("10.0.0.0/24"), 16).has_value());  // longer than the pool
  CHECK(describe(*map.find_overlap(cidr("10.0.3.0/24"))) ==
        "the network 10.0.2.0/23 used for peer c2's PodCIDR");
  CHECK_FALSE(map.erase(cidr("10.0.2.0/24")));  // only exact networks are freed
  CHECK(map.erase(cidr("10.0.2.0/23")));
  CHECK(*map.first_free(cidr("10.0.0.0/8"), 23) == cidr("10.0.2.0/23"));
  CHECK(map.size() == 1);
}

TEST_CASE("PrefixMap searches the whole IPv4 space without overflow") {
  PrefixMap map;
  map.insert({cidr("0.0.0.0/1"), Owner::Reserved, ""});
  CHECK(*map.first_free(cidr("0.0.0.0/0"), 1) == cidr("128.0.0.0/1"));
  map.insert({cidr("128.0.0.0/1"), Owner::Reserved, ""});
  CHECK_FALSE(map.first_free(cidr("0.0.0.0/0"), 32).has_value());
}
