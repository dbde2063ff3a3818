#include "shared/util/strings.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using fed::util::EmptyParts;

TEST_CASE("split keeps or skips empty pieces") {
  CHECK(fed::util::split("a,b,,c", ',') == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(fed::util::split("a,b,,c,", ',', EmptyParts::Skip) ==
        std::vector<std::string>{"a", "b", "c"});
  CHECK(fed::util::split("", ',') == std::vector<std::string>{""});
  CHECK(fed::util::split("", ',', EmptyParts::Skip).empty());
}

TEST_CASE("join, trim, case helpers, replace_all") {
  CHECK(fed::util::join({"a", "b", "c"}, ", ") == "a, b, c");
  CHECK(fed::util::join({}, ", ").empty());
  CHECK(fed::util::trim(" \t x y \r\n") == "x y");
  CHECK(fed::util::trim("   ").empty());
  CHECK(fed::util::to_lower("JoIn-9") == "join-9");
  CHECK(fed::util::iequals("Version", "vERSION"));
  CHECK_FALSE(fed::util::iequals("version", "versions"));
  CHECK(fed::util::replace_all("a.b.c", ".", "::") == "a::b::c");
  CHECK(fed::util::replace_all("aaa", "aa", "b") == "ba");
}

TEST_CASE("shell_quote quotes only when needed") {
  CHECK(fed::util::shell_quote("kubectl-fed") == "kubectl-fed");
  CHECK(fed::util::shell_quote("a b") == "'a b'");
  CHECK(fed::util::shell_quote("it's") == "'it'\\''s'");
  CHECK(fed::util::shell_quote("") == "''");
}
