#include "shared/fedapi/probe_answer.hpp"

#include <doctest/doctest.h>

using fed::ErrorCode;
using fed::fedapi::parse_probe_answer;
using fed::fedapi::probe_answer_line;

TEST_CASE("probe answer: the line written is the line read back") {
  const std::string line = probe_answer_line("c3", "10.71.0.5");
  CHECK(line == "kubectl-fed-probe c3 from 10.71.0.5\n");
  auto seen = parse_probe_answer(line);
  REQUIRE(seen);
  CHECK(*seen == "10.71.0.5");
  CHECK(*parse_probe_answer("kubectl-fed-probe c3 from 10.0.0.1\r\n") == "10.0.0.1");
}

TEST_CASE("probe answer: anything else is Invalid, quoting what was read") {
  for (const char* bad : {"", "hello", "kubectl-fed-probe c3", "kubectl-fed-probe c3 from ",
                          "probe c3 from 10.0.0.1", "dial tcp 10.0.0.1:7946: i/o timeout"}) {
    auto r = parse_probe_answer(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message().find("not a kubectl-fed probe answer") != std::string::npos);
  }
}
