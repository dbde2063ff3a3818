#pragma once
// How `join` and `unjoin` reach a member with the user's own credentials: --member-context
// (a context of the same kubeconfig files) and/or --member-kubeconfig (another file), probed
// once so that an unreachable member fails fast with one line (exit code 3).

#include <memory>
#include <string>

#include "plugin/cli/global_options.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/rest_config.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

struct MemberFlags {
  std::string context;     // --member-context
  std::string kubeconfig;  // --member-kubeconfig
};

struct MemberConnection {
  std::shared_ptr<kube::DynamicClient> client;
  kube::RestConfig config;  // as resolved (server, CA, TLS settings)
};

// Resolves the member's kubeconfig context and checks the API server answers. When neither flag
// is set, `fallback_context` (may be empty: then Invalid asking for a flag) is used. Errors are
// one line naming the member: Unavailable when unreachable, NotFound for a missing context.
Result<MemberConnection> connect_member(const GlobalOptions& global, const MemberFlags& flags,
                                        const std::string& member,
                                        const std::string& fallback_context);

}  // namespace fed::plugin
