#pragma once
// Where requests for a RestConfig go: the base URL, the connect-to mapping and Host header that
// implement tls-server-name, and the label messages use for the server. Pure string work (URL
// parsing via libcurl's URL API stays in the .cpp), so it is unit-tested without a network.

#include <string>

#include "shared/kube/rest_config.hpp"
#include "shared/result/result.hpp"

namespace fed::kube {

struct HttpEndpoint {
  // scheme://host:port[/prefix]; with tls-server-name the host is that name, so SNI and
  // certificate verification use it.
  std::string base_url;
  // "name:port:realhost:port" for CURLOPT_CONNECT_TO when tls-server-name is set, else empty.
  std::string connect_to;
  // "Host: realhost:port" when tls-server-name is set (the real server, as Go sends), else empty.
  std::string host_header;
  // "https://10.0.0.1:6443 (cluster \"c1\")": how messages name the server.
  std::string label;
};

// Validates server and proxy-url; Invalid errors name the cluster, the field and the fix.
Result<HttpEndpoint> resolve_endpoint(const RestConfig& config);

}  // namespace fed::kube
