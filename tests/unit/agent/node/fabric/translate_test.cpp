#include "agent/node/fabric/translate.hpp"

#include <doctest/doctest.h>

#include "tests/unit/agent/node/fabric/net_literals.hpp"

using fed::fabric::first_host;
using fed::fabric::map_ip_to_network;
using fed::fabric::testing::cidr;
using fed::fabric::testing::ip;
using fed::net::Cidr;
using fed::net::Ipv4;

TEST_CASE("MapIPToNetwork keeps the host part (spec 002 §1.4 examples)") {
  CHECK(map_ip_to_network(ip("10.244.0.7"), cidr("10.0.0.0/24")) == ip("10.0.0.7"));
  CHECK(map_ip_to_network(ip("10.244.3.77"), cidr("172.16.64.0/18")) == ip("172.16.67.77"));
  CHECK(map_ip_to_network(ip("192.168.0.45"), std::nullopt) == ip("192.168.0.45"));
  CHECK(map_ip_to_network(ip("192.168.0.45"), cidr("10.50.0.0/24")) == ip("10.50.0.45"));
  CHECK(map_ip_to_network(ip("1.2.3.4"), cidr("0.0.0.0/0")) == ip("1.2.3.4"));
  CHECK(map_ip_to_network(ip("1.2.3.4"), cidr("9.9.9.9/32")) == ip("9.9.9.9"));
}

TEST_CASE("first_host, overlay address and MAC derive from the prefix and node IP") {
  CHECK(first_host(cidr("10.3.0.0/24")) == ip("10.3.0.1"));
  CHECK(first_host(cidr("10.3.0.8/31")) == ip("10.3.0.8"));
  CHECK(fed::fabric::overlay_ip(ip("192.0.2.2")) == ip("240.0.2.2"));
  CHECK(fed::fabric::overlay_mac(ip("172.20.1.2")).str() == "02:fe:ac:14:01:02");
}

TEST_CASE("address types parse, print and reject bad input") {
  CHECK(ip("10.0.0.5").str() == "10.0.0.5");
  CHECK(cidr("10.1.0.0/16").str() == "10.1.0.0/16");
  CHECK_FALSE(Ipv4::parse("10.0.0"));
  CHECK_FALSE(Ipv4::parse("10.0.0.256"));
  CHECK_FALSE(Ipv4::parse("10.0.0.1.2"));
  CHECK_FALSE(Cidr::parse("10.0.0.0"));
  CHECK_FALSE(Cidr::parse("10.0.0.0/33"));
  auto host_bits = Cidr::parse("10.0.0.5/24");
  REQUIRE_FALSE(host_bits);
  CHECK(host_bits.error().code() == fed::ErrorCode::Invalid);
  CHECK(host_bits.error().message().find("did you mean 10.0.0.0/24") != std::string::npos);
  CHECK(cidr("10.0.0.0/8").contains(cidr("10.1.0.0/16")));
  CHECK(cidr("10.1.0.0/16").overlaps(cidr("10.0.0.0/8")));
  CHECK_FALSE(cidr("10.1.0.0/24").overlaps(cidr("10.1.1.0/24")));
  CHECK(fed::net::MacAddr::parse("02:FE:00:00:00:01")->str() == "02:fe:00:00:00:01");
}
