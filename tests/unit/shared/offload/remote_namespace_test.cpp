#include <doctest/doctest.h>

#include "shared/offload/remote_namespace.hpp"

namespace fed::offload {
namespace {

using fedapi::NamespaceMappingStrategy;

fedapi::NamespaceOffloadingSpec spec_with(NamespaceMappingStrategy s, std::string name = "") {
  fedapi::NamespaceOffloadingSpec spec;
  spec.namespace_mapping_strategy = s;
  spec.remote_namespace_name = std::move(name);
  return spec;
}

}  // namespace

TEST_CASE("DefaultName is <namespace>-<host cluster id>") {
  auto name = remote_namespace_name(spec_with(NamespaceMappingStrategy::DefaultName), "shop", "c1");
  REQUIRE(name);
  CHECK(*name == "shop-c1");
}

TEST_CASE("DefaultName refuses a result over 63 characters, naming the field and the fix") {
  // The spec's case: a 36-character UUID cluster id leaves 26 characters for the namespace.
  const std::string uuid = "4c6a4e2f-6f3b-4bb5-9f5b-0c6d2a1e9d77";
  const auto spec = spec_with(NamespaceMappingStrategy::DefaultName);
  const std::string ns26(26, 'a');
  auto ok26 = remote_namespace_name(spec, ns26, uuid);
  REQUIRE(ok26);
  CHECK(ok26->size() == 63);
  auto too_long = remote_namespace_name(spec, ns26 + "b", uuid);
  REQUIRE_FALSE(too_long);
  CHECK(too_long.error().code() == ErrorCode::Invalid);
  CHECK(too_long.error().message() ==
        "spec.namespaceMappingStrategy: DefaultName would name the remote namespace \"" + ns26 +
            "b-" + uuid +
            "\" (64 characters), longer than the 63 of a DNS label; with cluster id \"" + uuid +
            "\" the namespace name may have at most 26 characters: use a shorter namespace, "
            "EnforceSameName, or SelectedName with spec.remoteNamespaceName");
  // A 63-character local namespace is a valid namespace, but never fits.
  auto sixty_three = remote_namespace_name(spec, std::string(63, 'n'), "c1");
  REQUIRE_FALSE(sixty_three);
  CHECK(sixty_three.error().message().find("at most 60 characters") != std::string::npos);
  auto long_id = remote_namespace_name(spec, "a", std::string(63, 'c'));
  REQUIRE_FALSE(long_id);
  CHECK(long_id.error().message().find("at most 0 characters") != std::string::npos);
}

TEST_CASE("EnforceSameName keeps the name; SelectedName takes remoteNamespaceName") {
  auto same = remote_namespace_name(spec_with(NamespaceMappingStrategy::EnforceSameName),
                                    std::string(63, 'x'), "c1");
  REQUIRE(same);
  CHECK(*same == std::string(63, 'x'));
  auto chosen = remote_namespace_name(spec_with(NamespaceMappingStrategy::SelectedName, "store"),
                                      "shop", "c1");
  REQUIRE(chosen);
  CHECK(*chosen == "store");
  auto missing =
      remote_namespace_name(spec_with(NamespaceMappingStrategy::SelectedName), "shop", "c1");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().starts_with("spec.remoteNamespaceName: is required"));
  auto bad = remote_namespace_name(spec_with(NamespaceMappingStrategy::SelectedName, "Store_1"),
                                   "shop", "c1");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().starts_with(
      "spec.remoteNamespaceName: \"Store_1\" is not a DNS label"));
}

TEST_CASE("DNS labels") {
  CHECK(is_dns_label("a"));
  CHECK(is_dns_label("shop-c1"));
  CHECK(is_dns_label(std::string(63, 'a')));
  CHECK_FALSE(is_dns_label(std::string(64, 'a')));
  CHECK_FALSE(is_dns_label(""));
  CHECK_FALSE(is_dns_label("-a"));
  CHECK_FALSE(is_dns_label("a-"));
  CHECK_FALSE(is_dns_label("A"));
  CHECK_FALSE(is_dns_label("a.b"));
  CHECK_FALSE(remote_namespace_name(fedapi::NamespaceOffloadingSpec{}, "Shop", "c1"));
}

}  // namespace fed::offload
