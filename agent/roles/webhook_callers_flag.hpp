#pragma once
// --webhook-caller-auth, the same on every role that serves an admission webhook (manager,
// tenancy, podpreset): who may call it (shared/webhook/webhook_tls_store.hpp).

#include <CLI/CLI.hpp>

#include "shared/webhook/webhook_tls_store.hpp"

namespace fed::agent {

inline constexpr std::string_view kWebhookCallerAuthFlag = "--webhook-caller-auth";

void add_webhook_callers_flag(CLI::App& command, webhook::WebhookCallers& callers);

}  // namespace fed::agent
