#pragma once
// kubectl-fed's version and git commit, compiled in from CMake (FED_VERSION, FED_GIT_COMMIT).

#include <string_view>

namespace fed::plugin {

std::string_view client_version();  // "0.1.0"
std::string_view client_git_commit();

}  // namespace fed::plugin
