#include "agent/manager/cli/manager_command.hpp"

#include <cstdlib>
#include <iostream>

#include "agent/roles/run.hpp"
#include "agent/roles/webhook_callers_flag.hpp"
#include "shared/util/duration.hpp"
#include "shared/util/strings.hpp"

namespace fed::federation {

ManagerCommand::ManagerCommand(CLI::App& command) {
  offload::OffloadOptions& offload = options_.offload;
  command
      .add_option("--webhook-bind-address", offload.webhook_bind_address,
                  "host:port of the pod webhook (HTTPS); empty: no webhook")
      ->capture_default_str();
  command.add_option("--webhook-cert-dir", offload.webhook_cert_dir,
                     "Where the webhook's serving certificate is written (default: a directory "
                     "under the temporary directory)");
  agent::add_webhook_callers_flag(command, offload.webhook_callers);
  if (const char* pod_ip = std::getenv("POD_IP")) offload.kubelet_advertise_address = pod_ip;
  command
      .add_option("--kubelet-bind-address", offload.kubelet_bind_address,
                  "host:port of the virtual nodes' kubelet API (HTTPS: kubectl logs); empty: "
                  "none")
      ->capture_default_str();
  command.add_option("--kubelet-advertise-address", offload.kubelet_advertise_address,
                     "The IP the virtual nodes publish for it (default: $POD_IP; none: the "
                     "kubelet API is not served)");
  command.add_option("--kubelet-cert-dir", offload.kubelet_cert_dir,
                     "Where its certificates are written (default: a directory under the "
                     "temporary directory)");
  command
      .add_option("--offload-workers", offload.workers,
                  "Workers of the namespace-offloading and namespace-map controllers")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  command
      .add_option("--kube-api-qps", options_.api_qps,
                  "Requests per second to the host API server, all controllers together")
      ->check(CLI::Range(1.0, 10000.0))
      ->capture_default_str();
  command
      .add_option("--kube-api-burst", options_.api_burst,
                  "Requests the manager may send at once above --kube-api-qps")
      ->check(CLI::Range(1, 20000))
      ->capture_default_str();
  command
      .add_option("--ipam-block-length", options_.ipam_block_length,
                  "Prefix length of the ExternalCIDR blocks endpoint mappings are stored in (one "
                  "IpamBlock and one NatMapping per peer each); chosen when the IPAM is first "
                  "written, kept after")
      ->check(CLI::Range(16, 32))
      ->capture_default_str();

  ManagerElectionOptions& election = options_.election;
  command.add_option("--leader-elect-etcd-endpoints", election_endpoints_,
                     "etcd members (https URLs, comma-separated) holding the managers' "
                     "leadership record: this manager runs its controllers only while it leads "
                     "(docs/HA.md); empty: no election, one replica");
  command.add_option("--leader-elect-etcd-cafile", election.etcd_tls.ca_file,
                     "CA of the etcd members' serving certificates");
  command.add_option("--leader-elect-etcd-certfile", election.etcd_tls.cert_file,
                     "client certificate for etcd");
  command.add_option("--leader-elect-etcd-keyfile", election.etcd_tls.key_file, "its private key");
  command.add_option("--leader-elect-key", election.key, "the leadership record's etcd key")
      ->capture_default_str();
  command.add_option("--leader-elect-identity", election.identity,
                     "this manager's name in the record (default: HOST/POD_PID, the host "
                     "cluster's id, $POD_NAME or else the machine's name, and the process id; "
                     "the other hosts read the leader's host from it)");
  command
      .add_option("--leader-elect-lease-duration", lease_duration_,
                  "a standby takes over once the record has not changed for this long")
      ->capture_default_str();
  command
      .add_option("--leader-elect-renew-deadline", renew_deadline_,
                  "the leader stops this long after the start of its last successful renewal; "
                  "at least 10 % below the lease duration")
      ->capture_default_str();
  command.add_option("--leader-elect-renew-period", renew_period_, "how often the leader renews")
      ->capture_default_str();
  command
      .add_option("--leader-elect-retry-period", retry_period_,
                  "how often a standby reads the record")
      ->capture_default_str();
}

Status ManagerCommand::apply_election_flags() {
  ManagerElectionOptions& e = options_.election;
  e.etcd_endpoints = util::split(election_endpoints_, ',', util::EmptyParts::Skip);
  if (e.etcd_endpoints.empty()) return ok();
  for (const auto& url : e.etcd_endpoints) {
    if (url.rfind("https://", 0) != 0) {
      return fail(ErrorCode::Invalid, "--leader-elect-etcd-endpoints: \"" + url +
                                          "\" is not an https URL (the members speak mTLS)");
    }
  }
  if (e.etcd_tls.ca_file.empty() || e.etcd_tls.cert_file.empty() || e.etcd_tls.key_file.empty()) {
    return fail(ErrorCode::Invalid,
                "--leader-elect-etcd-endpoints needs --leader-elect-etcd-cafile, "
                "--leader-elect-etcd-certfile and --leader-elect-etcd-keyfile");
  }
  FED_ASSIGN_OR_RETURN(
      e.timings.lease_duration,
      util::parse_positive_duration(lease_duration_, "--leader-elect-lease-duration"));
  FED_ASSIGN_OR_RETURN(
      e.timings.renew_deadline,
      util::parse_positive_duration(renew_deadline_, "--leader-elect-renew-deadline"));
  FED_ASSIGN_OR_RETURN(e.timings.renew_period,
                       util::parse_positive_duration(renew_period_, "--leader-elect-renew-period"));
  FED_ASSIGN_OR_RETURN(e.timings.retry_period,
                       util::parse_positive_duration(retry_period_, "--leader-elect-retry-period"));
  if (auto valid = e.timings.validate(); !valid) {
    return fail(ErrorCode::Invalid, "--leader-elect-*: " + valid.error().message());
  }
  return ok();
}

int ManagerCommand::run(const agent::AgentOptions& options) {
  if (auto valid = apply_election_flags(); !valid) {
    std::cerr << "fed-agent: " << valid.error().message() << "\n";
    return agent::kExitUsage;
  }
  ManagerRunner runner(options_);
  return agent::run_role(runner, options);
}

}  // namespace fed::federation
