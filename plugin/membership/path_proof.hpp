#pragma once
// The data-path proof of `kubectl fed join --wait` (docs/JOIN.md): a listener pod on the host
// and a dialling pod on the member (both `fed-agent probe`, the federation's own image) exchange
// TCP across the tunnel. The dialler reaches the host pod at its address as the member sees it
// (after the member's remap of the host's PodCIDR); the listener reports the source it saw,
// which must be the member pod's address as the host sees it. Both pods are removed afterwards.

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin/cli/output.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

inline constexpr int kProbePort = 7946;

// `address` moved from network `from` into network `to` (same prefix length, host bits kept),
// as NETMAP does; `address` unchanged when `to` is empty or "None". Invalid on bad input.
Result<std::string> translate_address(const std::string& address, const std::string& from,
                                      const std::string& to);

// A probe pod in kubectl-fed-system: restartPolicy Never, no service-account token, running
// `fed-agent probe ARGS...` unprivileged with `token` in $FED_PROBE_TOKEN (the listener answers
// only the dialler that sends it). Pure.
nlohmann::json probe_pod(const std::string& name, const std::string& image,
                         const std::vector<std::string>& args, const std::string& token);

struct ProbeSides {
  kube::DynamicClient& host;
  kube::DynamicClient& member;
  std::string host_id;
  std::string member_id;
  std::string image;
};

// Runs the probe; the result document (pods, addresses, the source seen) or Unavailable naming
// the hop that failed. `peering` is the host's Peering MEMBER (its status has the remaps).
Result<nlohmann::json> prove_data_path(const ProbeSides& sides, const nlohmann::json& peering,
                                       std::chrono::milliseconds timeout, Output& out);

}  // namespace fed::plugin
