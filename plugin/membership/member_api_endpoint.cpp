#include "plugin/membership/member_api_endpoint.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace fed::plugin {
namespace {

// "host" of "https://host:port/path", "[v6]" unbracketed, lowercased.
std::string url_host(std::string_view url) {
  if (const auto scheme = url.find("://"); scheme != std::string_view::npos) {
    url.remove_prefix(scheme + 3);
  }
  url = url.substr(0, url.find_first_of("/?#"));
  if (const auto at = url.rfind('@'); at != std::string_view::npos) url.remove_prefix(at + 1);
  std::string host;
  if (url.starts_with('[')) {
    host = std::string(url.substr(1, url.find(']') - 1));
  } else {
    host = std::string(url.substr(0, url.find(':')));
  }
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return host;
}

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host.ends_with(".localhost")) return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

}  // namespace

bool is_loopback_url(std::string_view url) {
  return is_loopback_host(url_host(url));
}

Result<MemberApiEndpoint> choose_member_api_endpoint(
    const std::string& member, std::string_view flag, std::string_view kubeconfig_server,
    const std::function<Result<kube::ApiAddress>()>& advertised) {
  if (!flag.empty()) return MemberApiEndpoint{std::string(flag), ""};
  if (!is_loopback_url(kubeconfig_server))
    return MemberApiEndpoint{std::string(kubeconfig_server), ""};
  const std::string why = "the member kubeconfig's server " + std::string(kubeconfig_server) +
                          " is this machine's loopback, which the host's pods cannot reach";
  const std::string fix =
      ": pass --member-api-endpoint https://ADDRESS:PORT, the address at "
      "which the host's pods reach " +
      member + "'s API server";
  auto found = advertised();
  if (!found) return fail(ErrorCode::Invalid, why + ", and " + found.error().message() + fix);
  if (is_loopback_host(found->ip)) {
    return fail(ErrorCode::Invalid, why + ", and " + member + "'s API server advertises " +
                                        found->url() + ", loopback too" + fix);
  }
  return MemberApiEndpoint{found->url(), why + "; using " + found->url() + ", the address " +
                                             member +
                                             "'s API server advertises (EndpointSlice "
                                             "default/kubernetes)"};
}

}  // namespace fed::plugin
