#pragma once
// Address literals for the datapath's unit tests; a malformed literal is a bug in the test.

#include "shared/net/net_types.hpp"

namespace fed::fabric::testing {

inline net::Cidr cidr(const char* s) {
  return *net::Cidr::parse(s);
}
inline net::Ipv4 ip(const char* s) {
  return *net::Ipv4::parse(s);
}

}  // namespace fed::fabric::testing
