#include "plugin/connect/member_connection.hpp"

#include "shared/kube/kubeconfig_resolve.hpp"
#include "shared/util/build_info.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

// Without --request-timeout the probe still gives up, so a black-holed member never hangs.
constexpr std::chrono::seconds kProbeTimeout{10};

}  // namespace

Result<MemberConnection> connect_member(const GlobalOptions& global, const MemberFlags& flags,
                                        const std::string& member,
                                        const std::string& fallback_context) {
  kube::LoadOptions load;
  load.kubeconfig_path = flags.kubeconfig.empty() ? global.kubeconfig : flags.kubeconfig;
  load.context = flags.context;
  if (flags.context.empty() && flags.kubeconfig.empty()) {
    if (fallback_context.empty()) {
      return fail(ErrorCode::Invalid, "say how to reach member " + member +
                                          " with your credentials: --member-context CONTEXT or "
                                          "--member-kubeconfig FILE");
    }
    load.context = fallback_context;
  }
  auto resolved = kube::rest_config_from_flags(load);
  if (!resolved) {
    // The resolver's fix names --context and --kubeconfig; for the member they are
    // --member-context and, when it was given, --member-kubeconfig.
    std::string message =
        util::replace_all(resolved.error().message(), "--context", "--member-context");
    if (!flags.kubeconfig.empty()) {
      message = util::replace_all(message, "--kubeconfig", "--member-kubeconfig");
    }
    return fail(resolved.error().code(), "member " + member + ": " + message);
  }
  kube::RestConfig config = std::move(*resolved);
  config.request_timeout = global.request_timeout;
  config.user_agent = "kubectl-fed/" + std::string(build::version());

  // The probe: one retry, bounded, so that a dead member fails in seconds.
  kube::RestConfig probe_config = config;
  if (probe_config.request_timeout.count() == 0) probe_config.request_timeout = kProbeTimeout;
  kube::RestClientOptions probe_options;
  probe_options.max_retries = 1;
  FED_ASSIGN_OR_RETURN(auto probe, kube::RestClient::create(probe_config, probe_options));
  auto version = probe->get_raw("/version");
  if (!version) {
    return fail(version.error().code(),
                "member " + member + " (context " + config.context_name +
                    ") cannot be reached: " + version.error().to_error().message());
  }
  kube::RestClientOptions options;
  options.max_retries = 2;
  FED_ASSIGN_OR_RETURN(auto client, kube::DynamicClient::create(config, options));
  return MemberConnection{std::move(client), std::move(config)};
}

}  // namespace fed::plugin
