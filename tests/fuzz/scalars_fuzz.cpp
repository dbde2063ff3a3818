// The small parsers of flags, objects and headers: addresses and CIDRs, label selectors,
// quantities, durations, RFC 3339 times, apiVersions, Retry-After. The first byte picks one.
// Properties: what parses prints back to a text that parses to the same value.

#include "shared/kube/label_selector.hpp"
#include "shared/kube/resource_ref.hpp"
#include "shared/kube/retry_policy.hpp"
#include "shared/net/net_types.hpp"
#include "shared/util/duration.hpp"
#include "shared/util/quantity.hpp"
#include "shared/util/rfc3339.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fed;
  auto in = fuzz::text(data, size);
  switch (fuzz::take_selector(in) % 9) {
    case 0:
      if (auto ip = net::Ipv4::parse(in)) {
        auto again = net::Ipv4::parse(ip->str());
        FED_FUZZ_CHECK(again && *again == *ip);
      }
      break;
    case 1:
      if (auto c = net::Cidr::parse(in)) {
        auto again = net::Cidr::parse(c->str());
        FED_FUZZ_CHECK(again && *again == *c);
      }
      break;
    case 2:
      if (auto m = net::MacAddr::parse(in)) {
        auto again = net::MacAddr::parse(m->str());
        FED_FUZZ_CHECK(again && again->str() == m->str());
      }
      break;
    case 3:
      if (auto s = kube::LabelSelector::parse(in)) {
        auto again = kube::LabelSelector::parse(s->to_string());
        FED_FUZZ_CHECK(again && again->to_string() == s->to_string());
        (void)s->matches({{"app", "web"}, {"tier", ""}});
      }
      break;
    case 4:
      if (auto q = util::parse_quantity(in)) {
        (void)q->value();
        (void)q->milli_value();
        (void)q->as_double();
      }
      break;
    case 5:
      (void)util::parse_duration(in);
      break;
    case 6:
      (void)util::parse_rfc3339(in);
      break;
    case 7:
      (void)kube::GroupVersion::parse(in);
      break;
    case 8:
      (void)kube::parse_retry_after(in);
      break;
  }
  return 0;
}
