#include "agent/roles/webhook_callers_flag.hpp"

#include <string>

namespace fed::agent {

void add_webhook_callers_flag(CLI::App& command, webhook::WebhookCallers& callers) {
  command.add_flag_callback(
      std::string(kWebhookCallerAuthFlag),
      [&callers] { callers = webhook::WebhookCallers::FrontProxy; },
      "Answer only kube-apiserver: callers must present a certificate of its front-proxy CA "
      "with a name of requestheader-allowed-names (kube-system/extension-apiserver-"
      "authentication). Needs the API server's admission configuration to give webhooks its "
      "front-proxy client certificate (docs/SECURITY.md, \"Webhook callers\")");
}

}  // namespace fed::agent
