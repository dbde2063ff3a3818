#pragma once
// The address the host's pods reach a joining member's API server at (the FederatedCluster's
// spec.apiEndpoint and the manager's credential for the member): --member-api-endpoint when
// given; else the member kubeconfig's server, unless that names the user's machine only — a
// port-forward, kind's or the testbed's 127.0.0.1 ports — and then the address the member's
// API server advertises (shared/kube/advertised_api), said on stderr.

#include <functional>
#include <string>
#include <string_view>

#include "shared/kube/advertised_api.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

struct MemberApiEndpoint {
  std::string url;
  std::string note;  // why this address when it is not the one given or the kubeconfig's
};

// Whether the host of the https:// URL `url` is this machine only: localhost, 127.0.0.0/8 or
// ::1. Pure.
bool is_loopback_url(std::string_view url);

// The endpoint of member `member`: `flag` when not empty; else `kubeconfig_server` unless it
// is loopback; else what `advertised` reads from the member. Invalid naming
// --member-api-endpoint when nothing usable is found (the advertised address is loopback too,
// or cannot be read).
Result<MemberApiEndpoint> choose_member_api_endpoint(
    const std::string& member, std::string_view flag, std::string_view kubeconfig_server,
    const std::function<Result<kube::ApiAddress>()>& advertised);

}  // namespace fed::plugin
