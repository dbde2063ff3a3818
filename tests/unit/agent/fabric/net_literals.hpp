#pragma once
// Address literals for the datapath's unit tests; a malformed literal is a bug in the test.

#include "os/net_types.hpp"

namespace fed::fabric::testing {

inline os::Cidr cidr(const char* s) {
  return *os::Cidr::parse(s);
}
inline os::Ipv4 ip(const char* s) {
  return *os::Ipv4::parse(s);
}

}  // namespace fed::fabric::testing
