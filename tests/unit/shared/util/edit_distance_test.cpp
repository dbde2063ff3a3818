#include "shared/util/edit_distance.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using fed::util::closest_match;
using fed::util::edit_distance;

TEST_CASE("edit_distance counts insertions, deletions, substitutions and transpositions") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("join", "join") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("jion", "join") == 1);        // adjacent transposition
  CHECK(edit_distance("verison", "version") == 1);  // adjacent transposition
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("status", "statsu") == 1);
  CHECK(edit_distance("peer", "per") == 1);
  CHECK(edit_distance("ca", "abc") == 3);  // optimal string alignment, not full Damerau
  CHECK(edit_distance("offload", "unoffload") == 2);
}

TEST_CASE("closest_match suggests plausible typos only") {
  const std::vector<std::string> verbs = {"completion", "join", "version", "unjoin"};
  CHECK(closest_match("jion", verbs) == "join");
  CHECK(closest_match("verison", verbs) == "version");
  CHECK(closest_match("VERSION", verbs) == "version");
  CHECK(closest_match("ver", verbs) == "version");  // prefix
  CHECK(closest_match("compl", verbs) == "completion");
  CHECK_FALSE(closest_match("deploy", verbs).has_value());
  CHECK_FALSE(closest_match("x", verbs).has_value());
  CHECK(closest_match("unjion", verbs) == "unjoin");
  // Ties go to the earlier candidate.
  CHECK(closest_match("ab", {"ax", "ay"}) == "ax");
  CHECK(closest_match("--contxt", {"--context", "--kubeconfig"}) == "--context");
}
