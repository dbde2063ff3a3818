#pragma once
// The TLS and authentication options of a RestConfig on a libcurl handle, shared by the REST
// transport (http_transport.hpp) and upgraded connections (upgrade_stream.hpp) so both trust
// and present exactly the same things.

#include <curl/curl.h>

#include <optional>

#include "shared/kube/rest_config.hpp"

namespace fed::kube {

// Server verification (or its skipping), the CA blob, the client certificate `cert` (already
// taken from the config or its certificate source), the proxy and basic auth. Blobs are copied.
void set_tls_and_auth_options(CURL* handle, const RestConfig& config,
                              const std::optional<ClientCertificate>& cert);

}  // namespace fed::kube
