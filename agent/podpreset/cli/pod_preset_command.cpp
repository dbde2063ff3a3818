#include "agent/podpreset/cli/pod_preset_command.hpp"

#include <cstdlib>

#include "agent/podpreset/pod_preset_runner.hpp"
#include "agent/roles/webhook_callers_flag.hpp"

namespace fed::podpreset {

PodPresetCommand::PodPresetCommand(CLI::App& command)
    : command_(&command), bind_address(kDefaultPodPresetBindAddress) {
  command_->add_option("--webhook-bind-address", bind_address, "host:port of the webhook (HTTPS)")
      ->capture_default_str();
  command_->add_option("--webhook-cert-dir", cert_dir,
                       "Where its serving certificate is written (default: a directory under "
                       "the temporary directory)");
  agent::add_webhook_callers_flag(*command_, callers);
}

std::unique_ptr<agent::RoleRunner> PodPresetCommand::runner() const {
  PodPresetOptions options;
  options.bind_address = bind_address;
  options.cert_dir = cert_dir;
  options.callers = callers;
  if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr && *ns != '\0') {
    options.namespace_name = ns;
  }
  return std::make_unique<PodPresetRunner>(std::move(options));
}

}  // namespace fed::podpreset
