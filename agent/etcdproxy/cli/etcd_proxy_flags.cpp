#include "agent/etcdproxy/cli/etcd_proxy_flags.hpp"

#include "shared/util/strings.hpp"

namespace fed::etcdproxy {

void add_etcd_proxy_flags(CLI::App& app, EtcdProxyFlags& f) {
  app.add_option("--listen-address", f.options.listen_address,
                 "host:port kube-apiserver's --etcd-servers points at")
      ->capture_default_str();
  app.add_option("--members", f.members,
                 "Comma-separated etcd member client URLs (https://10.0.0.1:2379,...)");
  app.add_option("--policy", f.policy, "round-robin | leader | leader+classifier")
      ->capture_default_str();
  app.add_option("--cacert", f.options.status_tls.ca_file,
                 "CA of the members' serving certificates");
  app.add_option("--cert", f.options.status_tls.cert_file, "Client certificate for status polls");
  app.add_option("--key", f.options.status_tls.key_file, "Client key for status polls");
  app.add_option("--poll-period-ms", f.poll_ms, "Maintenance.Status period")->capture_default_str();
  app.add_option("--status-timeout-ms", f.status_timeout_ms, "Limit per status poll")
      ->capture_default_str();
  app.add_option("--dial-timeout-ms", f.dial_ms, "Limit per member connect")->capture_default_str();
  app.add_option("--drain-quiet-ms", f.quiet_ms,
                 "Quiet time before closing a deposed leader's connection")
      ->capture_default_str();
  app.add_option("--drain-deadline-ms", f.deadline_ms,
                 "Close a deposed leader's connection by then in any case")
      ->capture_default_str();
  app.add_option("--serve-cert", f.options.serving_tls.cert_file,
                 "Terminate the clients' TLS with this certificate (signed by a CA "
                 "kube-apiserver's --etcd-cafile trusts): drains then fail no request");
  app.add_option("--serve-key", f.options.serving_tls.key_file, "Key of --serve-cert");
  app.add_option("--serve-client-ca", f.options.serving_tls.client_ca_file,
                 "CA the clients' certificates must chain to (default: --cacert)");
  app.add_option("--status-socket", f.status_socket,
                 "Unix socket (mode 0600) serving `kubectl fed etcd status`; \"\" for none")
      ->capture_default_str();
  app.add_option("--classifier-model", f.options.classifier_model,
                 "leader+classifier: XGBoost model (fed-etcd-classifier train)");
  app.add_option("--classify-period-ms", f.classify_ms,
                 "leader+classifier: scrape and classify the leader this often")
      ->capture_default_str();
  app.add_option("--move-hold-periods", f.options.move_hold_periods,
                 "leader+classifier: periods of class 1/3 in a row before MoveLeader")
      ->capture_default_str();
  app.add_option("--move-cooldown-periods", f.options.move_cooldown_periods,
                 "leader+classifier: periods without another move after one")
      ->capture_default_str();
}

Result<EtcdProxyOptions> to_options(const EtcdProxyFlags& f) {
  EtcdProxyOptions o = f.options;
  auto policy = parse_proxy_policy(f.policy);
  if (!policy) return policy.error().with_context("--policy");
  o.policy = policy->routing;
  o.classifier = policy->classifier;
  o.classify_period = std::chrono::milliseconds(f.classify_ms);
  o.members.clear();
  for (auto& m : util::split(f.members, ',')) {
    if (!m.empty()) o.members.push_back(m);
  }
  if (o.members.empty()) {
    return fail(ErrorCode::Invalid,
                "--members: no etcd member given; pass every member's client URL, e.g. "
                "--members https://10.0.0.1:2379,https://10.0.0.2:2379");
  }
  o.poll_period = std::chrono::milliseconds(f.poll_ms);
  o.status_timeout = std::chrono::milliseconds(f.status_timeout_ms);
  o.dial_timeout = std::chrono::milliseconds(f.dial_ms);
  o.drain_quiet = std::chrono::milliseconds(f.quiet_ms);
  o.drain_deadline = std::chrono::milliseconds(f.deadline_ms);
  o.status_socket = f.status_socket;
  if (o.serving_tls.enabled() && o.serving_tls.client_ca_file.empty()) {
    o.serving_tls.client_ca_file = o.status_tls.ca_file;
  }
  FED_TRY(validate(o));
  return o;
}

}  // namespace fed::etcdproxy
