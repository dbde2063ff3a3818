#include "shared/kube/http_endpoint.hpp"

#include <curl/curl.h>

#include "shared/raii/c_handle.hpp"

namespace fed::kube {
namespace {

using CurlUrl = CHandle<CURLU, curl_url_cleanup>;

std::string url_part(CURLU* u, CURLUPart part, unsigned int flags = 0) {
  char* out = nullptr;
  if (curl_url_get(u, part, &out, flags) != CURLUE_OK || out == nullptr) return {};
  std::string s(out);
  curl_free(out);
  return s;
}

}  // namespace

Result<HttpEndpoint> resolve_endpoint(const RestConfig& config) {
  HttpEndpoint ep;
  ep.label = config.server;
  if (!config.cluster_name.empty()) {
    ep.label += " (cluster \"" + config.cluster_name + "\")";
  } else if (!config.context_name.empty()) {
    ep.label += " (context \"" + config.context_name + "\")";
  }
  const std::string where = config.cluster_name.empty() ? std::string("the cluster")
                                                        : "cluster \"" + config.cluster_name + "\"";

  CurlUrl url(curl_url());
  if (!url) return fail(ErrorCode::Internal, "curl_url: out of memory");
  if (config.server.empty() ||
      curl_url_set(url.get(), CURLUPART_URL, config.server.c_str(), 0) != CURLUE_OK) {
    return fail(ErrorCode::Invalid,
                where + ": server \"" + config.server + "\" is not a URL; use https://host:port");
  }
  const std::string scheme = url_part(url.get(), CURLUPART_SCHEME);
  if (scheme != "https" && scheme != "http") {
    return fail(ErrorCode::Invalid,
                where + ": server \"" + config.server + "\" must start with https:// (or http://)");
  }
  const std::string host = url_part(url.get(), CURLUPART_HOST);  // IPv6 keeps its brackets
  const std::string port = url_part(url.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
  std::string prefix = url_part(url.get(), CURLUPART_PATH);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();

  std::string url_host = host;
  if (!config.tls_server_name.empty() && scheme == "https") {
    url_host = config.tls_server_name;
    ep.connect_to = config.tls_server_name + ":" + port + ":" + host + ":" + port;
    ep.host_header = "Host: " + host + ":" + port;
  }
  ep.base_url = scheme + "://" + url_host + ":" + port + prefix;

  if (!config.proxy_url.empty()) {
    CurlUrl proxy(curl_url());
    if (!proxy || curl_url_set(proxy.get(), CURLUPART_URL, config.proxy_url.c_str(),
                               CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
      return fail(ErrorCode::Invalid, where + ": proxy-url \"" + config.proxy_url +
                                          "\" is not a URL; use http://, https:// or socks5://");
    }
  }
  return ep;
}

}  // namespace fed::kube
