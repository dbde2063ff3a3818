#pragma once
// The roles fed-agent runs as; each role's main loop lives in its own folder.

#include <string_view>

namespace fed::agent {

enum class Role { Node, Manager, EtcdProxy, Tenancy, PodPreset };

std::string_view to_string(Role role);

}  // namespace fed::agent
