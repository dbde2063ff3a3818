#include "agent/tenancy/cli/tenancy_command.hpp"

#include <cstdlib>

#include "agent/roles/webhook_callers_flag.hpp"
#include "agent/tenancy/tenancy_runner.hpp"
#include "shared/net/net_types.hpp"

namespace fed::tenancy {

TenancyCommand::TenancyCommand(CLI::App& command)
    : command_(&command),
      bind_address(kDefaultTenancyBindAddress),
      default_request("cpu=50m,memory=64Mi") {
  command_
      ->add_option("--webhook-bind-address", bind_address,
                   "host:port of the namespace-cap webhook (HTTPS)")
      ->capture_default_str();
  command_->add_option("--webhook-cert-dir", cert_dir,
                       "Where its serving certificate is written (default: a directory under "
                       "the temporary directory)");
  agent::add_webhook_callers_flag(*command_, callers);
  command_
      ->add_option("--namespace-quota", namespace_quota,
                   "Replica namespaces each consumer may hold here; 0: no cap")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  command_->add_option("--quota", quota,
                       "ResourceQuota spec.hard of each replica, NAME=QUANTITY pairs separated "
                       "by commas (e.g. requests.cpu=2,requests.memory=4Gi,pods=50); empty: none");
  command_
      ->add_option("--default-request", default_request,
                   "LimitRange default container requests of each replica; empty: none")
      ->capture_default_str();
  command_->add_option("--local-pod-cidr", local_pod_cidr,
                       "This cluster's PodCIDR: each replica's NetworkPolicy admits its pods "
                       "only from the same consumer's replicas; empty: no NetworkPolicy");
}

Result<std::unique_ptr<agent::RoleRunner>> TenancyCommand::runner() const {
  TenancyOptions options;
  options.bind_address = bind_address;
  options.cert_dir = cert_dir;
  options.callers = callers;
  if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr && *ns != '\0') {
    options.namespace_name = ns;
  }
  options.policy.namespace_quota = namespace_quota;
  FED_ASSIGN_OR_RETURN(options.policy.quota, parse_resource_list(quota, "--quota"));
  FED_ASSIGN_OR_RETURN(options.policy.default_request,
                       parse_resource_list(default_request, "--default-request"));
  if (!local_pod_cidr.empty()) {
    auto cidr = net::Cidr::parse(local_pod_cidr);
    if (!cidr) {
      return fail(ErrorCode::Invalid,
                  "--local-pod-cidr: " + cidr.error().message() + " (e.g. 10.244.0.0/16)");
    }
    options.policy.local_pod_cidr = cidr->str();
  }
  return std::unique_ptr<agent::RoleRunner>(std::make_unique<TenancyRunner>(std::move(options)));
}

}  // namespace fed::tenancy
