#include "etcdproxy/options.hpp"

#include "etcdproxy/socket_util.hpp"

namespace fed::etcdproxy {

Result<etcd::RoutingPolicy> parse_proxy_policy(std::string_view text) {
  if (text == "leader+classifier") {
    return fail(ErrorCode::Invalid,
                "policy leader+classifier needs the leader-health classifier, which this build "
                "does not include; use leader or round-robin");
  }
  return etcd::parse_routing_policy(text);
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
  if (options.poll_period.count() <= 0 || options.status_timeout.count() <= 0 ||
      options.dial_timeout.count() <= 0) {
    return fail(ErrorCode::Invalid, "poll period, status timeout and dial timeout must be > 0");
  }
  return ok();
}

}  // namespace fed::etcdproxy
