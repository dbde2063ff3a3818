#include "plugin/membership/membership_validation.hpp"

#include <chrono>
#include <regex>

#include "shared/util/duration.hpp"
#include "shared/util/quantity.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

Unexpected invalid(std::string message) {
  return fail(ErrorCode::Invalid, std::move(message));
}

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A label value: empty, or <= 63 chars, alphanumeric at both ends, [-_.] inside.
bool is_label_value(std::string_view v) {
  if (v.empty()) return true;
  if (v.size() > 63 || !is_alnum(v.front()) || !is_alnum(v.back())) return false;
  for (char c : v) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// A label key: [prefix/]name, the prefix a DNS subdomain, the name a non-empty label value.
bool is_label_key(std::string_view k) {
  const std::size_t slash = k.find('/');
  std::string_view name = k;
  if (slash != std::string_view::npos) {
    const std::string_view prefix = k.substr(0, slash);
    name = k.substr(slash + 1);
    if (prefix.empty() || prefix.size() > 253) return false;
    for (const auto& part : util::split(prefix, '.')) {
      if (!is_dns_label(part)) return false;
    }
  }
  return !name.empty() && is_label_value(name);
}

}  // namespace

Result<DryRun> parse_dry_run(std::string_view value) {
  if (value == "none") return DryRun::None;
  if (value == "client") return DryRun::Client;
  if (value == "server") {
    return invalid("--dry-run=server is not supported: use --dry-run=client to print the objects");
  }
  return invalid("invalid value \"" + std::string(value) +
                 "\" for --dry-run: use --dry-run=client (or none)");
}

bool is_dns_label(std::string_view id) {
  if (id.empty() || id.size() > 63) return false;
  const auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!ok(id.front()) || !ok(id.back())) return false;
  for (char c : id) {
    if (!ok(c) && c != '-') return false;
  }
  return true;
}

Status validate_cluster_id(std::string_view id, std::string_view what) {
  if (is_dns_label(id)) return ok();
  return invalid("invalid " + std::string(what) + " \"" + std::string(id) +
                 "\": a cluster id is a DNS label, at most 63 lower-case letters, digits and "
                 "'-', starting and ending with a letter or digit (e.g. eu-west-1)");
}

Result<net::Cidr> parse_cidr_flag(std::string_view value, std::string_view flag) {
  auto cidr = net::Cidr::parse(value);
  if (!cidr) return invalid("invalid " + std::string(flag) + ": " + cidr.error().message());
  return *cidr;
}

Status check_disjoint(const SourcedCidr& pods, const SourcedCidr& services) {
  if (!pods.cidr.overlaps(services.cidr)) return ok();
  return invalid(pods.source + " " + pods.cidr.str() + " overlaps " + services.source + " " +
                 services.cidr.str() +
                 ": pods and services need disjoint ranges; pass non-overlapping --pod-cidr "
                 "and --service-cidr");
}

Result<std::map<std::string, std::string>> parse_cluster_labels(std::string_view text) {
  std::map<std::string, std::string> out;
  if (util::trim(text).empty()) return out;
  for (const auto& raw : util::split(text, ',')) {
    const std::string pair(util::trim(raw));
    const std::size_t eq = pair.find('=');
    if (eq == std::string::npos) {
      return invalid("invalid --cluster-labels entry \"" + pair +
                     "\": write key=value pairs separated by commas, e.g. "
                     "topology.kubernetes.io/region=eu-west,provider=onprem");
    }
    const std::string key = pair.substr(0, eq), value = pair.substr(eq + 1);
    if (!is_label_key(key)) {
      return invalid("invalid --cluster-labels key \"" + key +
                     "\": use a label name such as region or example.com/zone");
    }
    if (const auto slash = key.find('/'); slash != std::string::npos) {
      const std::string prefix = key.substr(0, slash);
      const std::string_view reserved = "kubectl-fed.io";
      if (prefix == reserved || std::string_view(prefix).ends_with("." + std::string(reserved))) {
        return invalid("invalid --cluster-labels key \"" + key + "\": the prefix " + prefix +
                       "/ is kubectl-fed's own (it labels virtual nodes with it); use another, "
                       "such as example.com/zone or topology.kubernetes.io/region");
      }
    }
    if (!is_label_value(value)) {
      return invalid("invalid --cluster-labels value \"" + value + "\" for " + key +
                     ": at most 63 letters, digits, '-', '_' or '.', alphanumeric at both ends");
    }
    if (out.count(key)) {
      return invalid("--cluster-labels names " + key + " twice; give each key once");
    }
    out[key] = value;
  }
  return out;
}

Status validate_share(std::string_view value, std::string_view flag) {
  if (value.empty()) return ok();
  auto q = util::parse_quantity(value);
  if (!q) {
    return invalid("invalid " + std::string(flag) + " \"" + std::string(value) +
                   "\": use a Kubernetes quantity such as 4, 500m or 8Gi");
  }
  if (!value.empty() && value.front() == '-') {
    return invalid("invalid " + std::string(flag) + " \"" + std::string(value) +
                   "\": must not be negative");
  }
  return ok();
}

Status validate_gateway_address(std::string_view address) {
  if (address.empty()) return ok();
  if (net::Ipv4::parse(address)) return ok();
  return invalid("invalid --gateway-address \"" + std::string(address) +
                 "\": use the IPv4 address the other clusters' gateways reach this gateway node "
                 "at, e.g. 172.31.0.1");
}

Status validate_api_endpoint(std::string_view url) {
  if (url.empty()) return ok();
  static const std::regex kUrl(R"(^https://[^\s/]+(/[^\s]*)?$)");
  if (std::regex_match(std::string(url), kUrl)) return ok();
  return invalid("invalid --member-api-endpoint \"" + std::string(url) +
                 "\": use the member API server's https:// URL as the host's pods reach it, "
                 "e.g. https://172.31.0.103:6443");
}

Result<std::chrono::milliseconds> parse_timeout_flag(std::string_view value,
                                                     std::string_view flag) {
  return util::parse_positive_duration(value, flag);
}

}  // namespace fed::plugin
