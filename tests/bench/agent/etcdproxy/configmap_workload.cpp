#include "tests/bench/agent/etcdproxy/configmap_workload.hpp"

#include <curl/curl.h>

#include <chrono>

#include "shared/raii/c_handle.hpp"

namespace fed::etcdbench {
namespace {

using CurlEasy = CHandle<CURL, curl_easy_cleanup>;
using CurlSlist = CHandle<curl_slist, curl_slist_free_all>;

size_t collect(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

}  // namespace

Result<WorkloadResult> run_configmap_workload(const WorkloadOptions& o) {
  CurlEasy easy(curl_easy_init());
  if (!easy) return fail(ErrorCode::Internal, "curl_easy_init failed");
  CurlSlist headers(curl_slist_append(nullptr, "Content-Type: application/json"));
  if (headers) curl_slist_append(headers.get(), "Accept: application/json");
  CURL* e = easy.get();
  WorkloadResult result;
  std::string body;
  auto request = [&](const std::string& method, const std::string& path,
                     const std::string& payload) {
    body.clear();
    curl_easy_setopt(e, CURLOPT_URL, (o.server + path).c_str());
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(e, CURLOPT_HTTPGET, method == "GET" ? 1L : 0L);
    if (method != "GET") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, payload.c_str());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(payload.size()));
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(e, CURLOPT_CAINFO, o.ca_file.c_str());
    curl_easy_setopt(e, CURLOPT_SSLCERT, o.cert_file.c_str());
    curl_easy_setopt(e, CURLOPT_SSLKEY, o.key_file.c_str());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 60000L);
    const auto start = std::chrono::steady_clock::now();
    const CURLcode rc = curl_easy_perform(e);
    result.started_s.push_back(std::chrono::duration<double>(start - result.started).count());
    result.latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    ++result.requests;
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    const bool ok = rc == CURLE_OK && status >= 200 && status < 300;
    result.succeeded.push_back(ok);
    if (!ok) {
      ++result.failed;
      if (result.errors.size() < 10) {
        result.errors.push_back(
            method + " " + path + ": " +
            (rc != CURLE_OK ? std::string(curl_easy_strerror(rc))
                            : "HTTP " + std::to_string(status) + " " + body.substr(0, 200)));
      }
    }
  };
  const std::string base = "/api/v1/namespaces/default/configmaps";
  result.started = std::chrono::steady_clock::now();
  const auto timed_out = [&] {
    return std::chrono::steady_clock::now() - result.started >= o.duration;
  };
  for (int i = 0; o.duration.count() > 0 ? !timed_out() : i < o.count; ++i) {
    const std::string name = o.prefix + "-" + std::to_string(i);
    request("POST", base,
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                R"("},"data":{"k":"v"}})");
    request("GET", base + "/" + name, "");
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - result.started).count();
  return result;
}

}  // namespace fed::etcdbench
