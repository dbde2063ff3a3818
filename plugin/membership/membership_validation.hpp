#pragma once
// Checks of the flags of `init` and `join` that the parser cannot make, before anything is
// read or written: each error is one line (Invalid, exit code 2) naming the flag and the fix.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "shared/net/net_types.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// --dry-run: none (write) or client (print what would be written, change nothing).
enum class DryRun { None, Client };

// Parses --dry-run's value: "none" or "client" ("server" is refused with the alternative).
Result<DryRun> parse_dry_run(std::string_view value);

// Whether `id` is a DNS label: 1-63 of [a-z0-9-], starting and ending alphanumeric.
bool is_dns_label(std::string_view id);

// Invalid naming `what` ("--cluster-id", "MEMBER") unless `id` is a DNS label.
Status validate_cluster_id(std::string_view id, std::string_view what);

// Parses a CIDR flag's value; the error names `flag`.
Result<net::Cidr> parse_cidr_flag(std::string_view value, std::string_view flag);

// A network and where it came from ("--pod-cidr", or "the PodCIDR discovered from the nodes").
struct SourcedCidr {
  net::Cidr cidr;
  std::string source;
};

// Invalid when the PodCIDR and the ServiceCIDR overlap, naming both sources and the fix.
Status check_disjoint(const SourcedCidr& pods, const SourcedCidr& services);

// Parses --cluster-labels "k=v,k2=v2": keys are label names (optional DNS prefix "x.io/"),
// values label values (<= 63, alphanumeric at both ends, '-', '_', '.' inside).
Result<std::map<std::string, std::string>> parse_cluster_labels(std::string_view text);

// Checks a --share-cpu/--share-memory quantity ("4", "500m", "8Gi"); empty passes.
Status validate_share(std::string_view value, std::string_view flag);

// Checks --gateway-address: an IPv4 address (the gateway's, as the peers' gateways reach it);
// empty passes.
Status validate_gateway_address(std::string_view address);

// Checks --member-api-endpoint: an https:// URL with a host; empty passes.
Status validate_api_endpoint(std::string_view url);

// Parses a Go duration flag (--timeout); must be positive.
Result<std::chrono::milliseconds> parse_timeout_flag(std::string_view value, std::string_view flag);

}  // namespace fed::plugin
