// The commit record's keys and what covers a command's write (shared/fedapi/state_commit).
#include "shared/fedapi/state_commit.hpp"

#include <doctest/doctest.h>

#include "shared/fedapi/group.hpp"

namespace fed::fedapi {

TEST_CASE("commit record: one key per object, the state store's kind names") {
  CHECK(state_kind(gvr(kFederatedCluster)) == "federatedclusters.fed.kubectl-fed.io");
  CHECK(state_kind({"", "v1", "secrets"}) == "secrets");
  CHECK(committed_key("federatedclusters.fed.kubectl-fed.io", "", "c4") ==
        "federatedclusters.fed.kubectl-fed.io__c4");
  CHECK(committed_key("secrets", "kubectl-fed-system", "c4-credentials") ==
        "secrets_kubectl-fed-system_c4-credentials");
}

TEST_CASE("commit record: a later or equal revision covers a write, only 'deleted' a deletion") {
  CHECK(commit_covers("120", std::string("120")));
  CHECK(commit_covers("121", std::string("120")));
  CHECK_FALSE(commit_covers("119", std::string("120")));
  CHECK_FALSE(commit_covers("deleted", std::string("120")));  // recreated since: not yet
  CHECK(commit_covers("deleted", std::nullopt));
  CHECK_FALSE(commit_covers("120", std::nullopt));  // its deletion is not committed yet
  CHECK_FALSE(commit_covers("", std::string("1")));
  CHECK_FALSE(commit_covers("12x", std::string("1")));
  CHECK_FALSE(commit_covers("5", std::string("")));
  // Compared as numbers, not text.
  CHECK(commit_covers("1000", std::string("999")));
}

}  // namespace fed::fedapi
