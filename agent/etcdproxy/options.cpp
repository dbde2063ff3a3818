#include "agent/etcdproxy/options.hpp"

#include "agent/etcdproxy/socket_util.hpp"

namespace fed::etcdproxy {

Result<PolicyChoice> parse_proxy_policy(std::string_view text) {
  if (text == "leader+classifier") return PolicyChoice{etcd::RoutingPolicy::Leader, true};
  FED_ASSIGN_OR_RETURN(auto routing, etcd::parse_routing_policy(text));
  return PolicyChoice{routing, false};
}

Status validate(const EtcdProxyOptions& options) {
  if (options.members.empty()) {
    return fail(ErrorCode::Invalid, "--members: give every etcd member's client URL");
  }
  for (const auto& m : options.members) {
    auto hp = parse_member_url(m);
    if (!hp) return std::move(hp).error().with_context("--members");
  }
  if (auto hp = parse_host_port(options.listen_address); !hp) {
    return std::move(hp).error().with_context("--listen-address");
  }
  if (!options.status_socket.empty() && options.status_socket.front() != '/') {
    return fail(ErrorCode::Invalid, "--status-socket \"" + options.status_socket +
                                        "\": give an absolute path, or \"\" for none");
  }
  if (options.poll_period.count() <= 0 || options.status_timeout.count() <= 0 ||
      options.dial_timeout.count() <= 0) {
    return fail(ErrorCode::Invalid, "poll period, status timeout and dial timeout must be > 0");
  }
  if (options.serving_tls.enabled()) {
    if (options.serving_tls.key_file.empty()) {
      return fail(ErrorCode::Invalid, "--serve-key: --serve-cert needs its key");
    }
    if (options.serving_tls.client_ca_file.empty() && options.status_tls.ca_file.empty()) {
      return fail(ErrorCode::Invalid,
                  "--serve-client-ca: terminating TLS needs the CA of the clients' certificates "
                  "(defaults to --cacert)");
    }
    if (options.status_tls.cert_file.empty()) {
      return fail(ErrorCode::Invalid,
                  "--cert/--key: terminating TLS needs the proxy's own client certificate for "
                  "the members");
    }
  }
  if (options.classifier) {
    if (options.policy != etcd::RoutingPolicy::Leader) {
      return fail(ErrorCode::Invalid, "the classifier runs only with leader routing");
    }
    if (options.classifier_model.empty()) {
      return fail(ErrorCode::Invalid,
                  "--classifier-model: policy leader+classifier needs a model file (train one "
                  "with fed-etcd-classifier train --data dataset.csv --out model.json)");
    }
    if (options.classify_period.count() <= 0 || options.move_hold_periods < 1 ||
        options.move_cooldown_periods < 0) {
      return fail(ErrorCode::Invalid,
                  "--classify-period-ms must be > 0, --move-hold-periods >= 1, "
                  "--move-cooldown-periods >= 0");
    }
  }
  return ok();
}

}  // namespace fed::etcdproxy
