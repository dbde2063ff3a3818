// IPv4 values (shared/net): parsing without ambiguity, the covering prefix, MapIPToNetwork.
#include "shared/net/net_types.hpp"

#include <doctest/doctest.h>

namespace fed::net {

TEST_CASE("addresses and prefixes parse only in their one decimal spelling") {
  CHECK(Ipv4::parse("10.0.0.5")->str() == "10.0.0.5");
  CHECK(Ipv4::parse("0.0.0.0")->str() == "0.0.0.0");
  CHECK(Cidr::parse("10.244.0.0/16")->str() == "10.244.0.0/16");
  // inet_aton reads 010 as octal 8: the same text would name two networks.
  for (const char* ambiguous : {"010.0.0.0/16", "10.00.0.0/16", "10.0.0.0/016", "10.0.0.01/32"}) {
    auto c = Cidr::parse(ambiguous);
    INFO(ambiguous);
    REQUIRE_FALSE(c);
    CHECK(c.error().code() == ErrorCode::Invalid);
  }
  auto leading = Ipv4::parse("192.168.001.1");
  REQUIRE_FALSE(leading);
  CHECK(leading.error().message() ==
        "\"192.168.001.1\" is not an IPv4 address (expected a.b.c.d, each 0 to 255 without "
        "leading zeros)");
  auto length = Cidr::parse("10.0.0.0/33");
  REQUIRE_FALSE(length);
  CHECK(length.error().message().find("e.g. 10.244.0.0/16") != std::string::npos);
  auto host_bits = Cidr::parse("10.0.0.1/16");
  REQUIRE_FALSE(host_bits);
  CHECK(host_bits.error().message().find("did you mean 10.0.0.0/16?") != std::string::npos);
}

TEST_CASE("the smallest prefix covering networks, and overlaps") {
  const auto c = [](const char* s) { return *Cidr::parse(s); };
  CHECK(smallest_containing({c("10.241.0.0/24"), c("10.241.1.0/24")}).str() == "10.241.0.0/23");
  CHECK(smallest_containing({c("10.241.0.0/24"), c("10.241.2.0/24")}).str() == "10.241.0.0/22");
  CHECK(smallest_containing({c("10.241.5.0/24")}).str() == "10.241.5.0/24");
  CHECK(smallest_containing({c("10.0.0.0/8"), c("192.168.0.0/16")}).str() == "0.0.0.0/0");
  CHECK(c("10.0.0.0/16").overlaps(c("10.0.128.0/17")));
  CHECK_FALSE(c("10.0.0.0/16").overlaps(c("10.1.0.0/16")));
}

TEST_CASE("MapIPToNetwork keeps the host part and takes the network's prefix") {
  const auto ip = *Ipv4::parse("10.241.3.7");
  CHECK(map_ip_to_network(ip, Cidr::parse("10.50.0.0/16").value()).str() == "10.50.3.7");
  CHECK(map_ip_to_network(ip, std::nullopt).str() == "10.241.3.7");
}

}  // namespace fed::net
