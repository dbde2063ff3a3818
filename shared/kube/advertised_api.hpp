#pragma once
// Where a cluster's API server says it is: the EndpointSlice `kubernetes` in `default`, which
// the API server keeps itself (its --advertise-address and secure port). Its own pods use that
// address behind the `kubernetes` Service; pods of another cluster can use it when the server
// advertises an address routable from there — unlike a kubeconfig's server, which is often a
// loopback port-forward only its user's machine reaches.

#include <string>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::kube {

struct ApiAddress {
  std::string ip;  // IPv4 dotted, or IPv6 without brackets
  int port = 443;

  std::string host_port() const;  // "172.31.0.102:6443", "[fd00::1]:6443"
  std::string url() const;        // "https://" + host_port()
};

// The first ready address of the EndpointSlice `slice` and its port named https (else its
// first port). NotFound naming the slice when it lists none. Pure.
Result<ApiAddress> advertised_api_address_of(const nlohmann::json& slice);

// Reads EndpointSlice default/kubernetes through `client`.
Result<ApiAddress> advertised_api_address(DynamicClient& client);

}  // namespace fed::kube
