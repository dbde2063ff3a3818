#include "shared/reconfig/allow_list.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

using fed::ErrorCode;
using namespace fed::reconfig;

namespace {

const FieldSpec& field(std::string_view name) {
  auto spec = find_field(name);
  REQUIRE(spec.has_value());
  return **spec;
}

// The typed value of `name` (with its map `key`) for `text`; fails the test on an error.
nlohmann::json good(std::string_view name, std::string_view key, std::string_view text) {
  auto v = typed_value(field(name), key, text);
  INFO(name, ".", key, "=", text);
  REQUIRE_MESSAGE(v.has_value(), v.error().message());
  return *v;
}

// The Invalid error's message for `name` (with `key`) = `text`.
std::string bad(std::string_view name, std::string_view key, std::string_view text) {
  auto v = typed_value(field(name), key, text);
  INFO(name, ".", key, "=", text);
  REQUIRE_FALSE(v.has_value());
  CHECK(v.error().code() == ErrorCode::Invalid);
  return v.error().message();
}

bool has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the allow-list is consistent: findable names, choices for enums and maps, sane bounds") {
  std::set<std::string_view> names;
  for (const auto& spec : allowed_fields()) {
    INFO(spec.name);
    CHECK(names.insert(spec.name).second);
    CHECK(find_field(spec.name).value() == &spec);
    if (spec.type == FieldType::Enum || spec.type == FieldType::ResourceMap) {
      CHECK_FALSE(spec.choices.empty());
    }
    if (spec.type == FieldType::Int) CHECK(spec.min < spec.max);
  }
  CHECK(names.count("cpuManagerPolicy") == 1);
  CHECK(names.count("featureGates") == 1);
  // The CPU manager's checkpoint contradicts a new policy or reservation: it must be removed.
  const auto& cpu = field("cpuManagerPolicy").state_files;
  CHECK(std::find(cpu.begin(), cpu.end(), "cpu_manager_state") != cpu.end());
  CHECK(field("maxPods").state_files.empty());
}

TEST_CASE("Enum: only the listed spellings; the error names the field, the value and the choices") {
  CHECK(good("cpuManagerPolicy", "", "static") == "static");
  CHECK(good("memoryManagerPolicy", "", "Static") == "Static");
  CHECK(good("topologyManagerPolicy", "", "single-numa-node") == "single-numa-node");
  const auto message = bad("cpuManagerPolicy", "", "Static");  // the kubelet is case-sensitive
  CHECK(has(message, "cpuManagerPolicy=Static"));
  CHECK(has(message, "none, static"));
  CHECK(has(bad("topologyManagerScope", "", ""), "container, pod"));
}

TEST_CASE("CpuSet: a Linux CPU list, kept as a string") {
  CHECK(good("reservedSystemCPUs", "", "0") == "0");
  CHECK(good("reservedSystemCPUs", "", "0-3,6") == "0-3,6");
  const auto message = bad("reservedSystemCPUs", "", "3-1");
  CHECK(has(message, "reservedSystemCPUs=3-1"));
  CHECK(has(message, "CPU list"));
  bad("reservedSystemCPUs", "", "");
  bad("reservedSystemCPUs", "", "all");
}

TEST_CASE("Bool: true or false only") {
  CHECK(good("failSwapOn", "", "false") == false);
  CHECK(good("serializeImagePulls", "", "true") == true);
  CHECK(good("cpuCFSQuota", "", "true").is_boolean());
  const auto message = bad("failSwapOn", "", "yes");
  CHECK(has(message, "failSwapOn=yes"));
  CHECK(has(message, "true or false"));
  bad("failSwapOn", "", "True");
  bad("failSwapOn", "", "1");
}

TEST_CASE("Int: an integer within the field's bounds, inclusive") {
  CHECK(good("maxPods", "", "110") == 110);
  CHECK(good("maxPods", "", "110").is_number_integer());
  CHECK(good("maxPods", "", "1") == 1);
  CHECK(good("maxPods", "", "10000") == 10000);
  CHECK(good("podPidsLimit", "", "-1") == -1);
  CHECK(good("imageGCHighThresholdPercent", "", "0") == 0);
  CHECK(good("imageGCHighThresholdPercent", "", "100") == 100);
  CHECK(good("containerLogMaxFiles", "", "2") == 2);
  const auto message = bad("maxPods", "", "0");
  CHECK(has(message, "maxPods=0"));
  CHECK(has(message, "from 1 to 10000"));
  bad("maxPods", "", "10001");
  bad("podPidsLimit", "", "-2");
  bad("imageGCLowThresholdPercent", "", "101");
  bad("containerLogMaxFiles", "", "1");
  bad("maxPods", "", "");
  bad("maxPods", "", "5x");
  bad("maxPods", "", "1.5");
  bad("maxPods", "", " 5");
  bad("maxPods", "", "99999999999999999999999");  // beyond long long, not wrapped
}

TEST_CASE("Duration: a Go duration, written as Go prints it so /configz compares equal") {
  CHECK(good("cpuManagerReconcilePeriod", "", "10s") == "10s");
  CHECK(good("shutdownGracePeriod", "", "90s") == "1m30s");
  CHECK(good("shutdownGracePeriod", "", "1h") == "1h0m0s");
  CHECK(good("shutdownGracePeriodCriticalPods", "", "0") == "0s");
  const auto message = bad("shutdownGracePeriod", "", "ten");
  CHECK(has(message, "shutdownGracePeriod=ten"));
  CHECK(has(message, "duration such as 10s"));
  bad("shutdownGracePeriod", "", "-5s");
  bad("shutdownGracePeriod", "", "10");  // a unit is required
}

TEST_CASE("Quantity: a resource quantity, kept as typed") {
  CHECK(good("containerLogMaxSize", "", "10Mi") == "10Mi");
  CHECK(good("containerLogMaxSize", "", "500k") == "500k");
  CHECK(has(bad("containerLogMaxSize", "", "ten"), "quantity such as 10Mi"));
}

TEST_CASE("ResourceMap: known keys only; non-negative quantities; percentages for eviction only") {
  CHECK(good("kubeReserved", "cpu", "500m") == "500m");
  CHECK(good("systemReserved", "memory", "1Gi") == "1Gi");
  CHECK(good("kubeReserved", "ephemeral-storage", "1G") == "1G");
  CHECK(good("evictionHard", "memory.available", "200Mi") == "200Mi");
  CHECK(good("evictionHard", "nodefs.available", "5%") == "5%");
  CHECK(good("evictionHard", "imagefs.available", "100%") == "100%");
  CHECK(good("evictionHard", "memory.available", "7.5%") == "7.5%");

  const auto unknown = bad("kubeReserved", "gpu", "1");
  CHECK(has(unknown, "kubeReserved.gpu"));
  CHECK(has(unknown, "cpu, memory, ephemeral-storage, pid"));
  const auto negative = bad("kubeReserved", "cpu", "-1");
  CHECK(has(negative, "kubeReserved.cpu=-1"));
  CHECK(has(negative, "non-negative quantity"));
  CHECK_FALSE(has(negative, "percentage"));
  bad("kubeReserved", "cpu", "5%");  // a reservation is not a percentage
  CHECK(has(bad("evictionHard", "memory.available", "101%"), "or a percentage such as 5%"));
  bad("evictionHard", "memory", "100Mi");  // the signal is memory.available
}

TEST_CASE("maps need an entry and scalars refuse one") {
  CHECK(has(bad("kubeReserved", "", "1"), "give one entry"));
  CHECK(has(bad("featureGates", "", "true"), "featureGates.GATE=true|false"));
  const auto message = bad("maxPods", "x", "1");
  CHECK(has(message, "maxPods.x"));
  CHECK(has(message, "no sub-fields"));
}

TEST_CASE("GateMap: kubelet gates take true or false") {
  CHECK(good("featureGates", "MemoryManager", "true") == true);
  CHECK(good("featureGates", "NodeSwap", "false") == false);
  const auto message = bad("featureGates", "MemoryManager", "on");
  CHECK(has(message, "featureGates.MemoryManager=on"));
  CHECK(has(message, "true or false"));
}

TEST_CASE("a control-plane feature gate is refused with the reason, whatever the value") {
  for (const char* value : {"true", "false"}) {
    const auto message = bad("featureGates", "SchedulerAsyncPreemption", value);
    CHECK(has(message, "featureGates.SchedulerAsyncPreemption"));
    CHECK(has(message, "control-plane feature gate"));
    CHECK(has(message, "vendor"));
  }
}

TEST_CASE("an unknown gate suggests the closest kubelet gate and lists them") {
  const auto message = bad("featureGates", "MemoryManagr", "true");
  CHECK(has(message, "featureGates.MemoryManagr"));
  CHECK(has(message, "did you mean MemoryManager?"));
  CHECK(has(message, "known: CPUCFSQuotaPeriod"));
  const auto& gates = kubelet_feature_gates();
  CHECK(std::is_sorted(gates.begin(), gates.end()));
  CHECK(std::adjacent_find(gates.begin(), gates.end()) == gates.end());
}

TEST_CASE("find_field suggests the field a typo meant and lists the allowed ones") {
  auto typo = find_field("cpuManagerPolicyy");
  REQUIRE_FALSE(typo.has_value());
  CHECK(typo.error().code() == ErrorCode::Invalid);
  CHECK(has(typo.error().message(), "--set cpuManagerPolicyy"));
  CHECK(has(typo.error().message(), "did you mean cpuManagerPolicy?"));
  CHECK(has(typo.error().message(), "allowed: cpuManagerPolicy, reservedSystemCPUs"));
  CHECK(has(find_field("maxpods").error().message(), "did you mean maxPods?"));
  auto far = find_field("staticPodPath");  // a real field, but not one kubectl-fed may change
  REQUIRE_FALSE(far.has_value());
  CHECK_FALSE(has(far.error().message(), "did you mean"));
}

TEST_CASE("is_cpu_list: single CPUs, lists and ascending ranges; nothing else") {
  for (const char* ok : {"0", "7", "0,2", "0-3", "0-3,6", "1-1", "0-1,4-5,8", "12,3"}) {
    INFO(ok);
    CHECK(is_cpu_list(ok));
  }
  for (const char* no : {"", "3-1", "0-3,5-4", "0-", "-1", ",1", "1,", "1,,2", "0 1", " 0", "a",
                         "0x1", "1-2-3", "0-99999999999999999999999"}) {
    INFO(no);
    CHECK_FALSE(is_cpu_list(no));
  }
}
