#pragma once
// Input checks of the IPAM: every error is Invalid and names the field and the fix.

#include <optional>
#include <string>
#include <string_view>

#include "shared/net/net_types.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric::ipam {

// Parses the CIDR `text` of input field `field` ("podCIDR", "reservedSubnets[1]").
Result<net::Cidr> parse_cidr(std::string_view field, std::string_view text);
// As parse_cidr, but "None" and "" (not remapped) give nullopt.
Result<std::optional<net::Cidr>> parse_optional_cidr(std::string_view field, std::string_view text);
// Parses the IPv4 address `text` of input field `field`.
Result<net::Ipv4> parse_ip(std::string_view field, std::string_view text);
// "None" for nullopt, else the CIDR.
std::string cidr_or_none(const std::optional<net::Cidr>& cidr);

// A hand-built Cidr may carry host bits or a length over 32; parsed ones never do.
Status check_network(std::string_view field, const net::Cidr& cidr);
// Cluster ids name objects and labels: a DNS-1123 label (lower-case alphanumerics and '-',
// at most 63 characters, starting and ending alphanumeric).
Status check_cluster_id(std::string_view cluster_id);

}  // namespace fed::fabric::ipam
