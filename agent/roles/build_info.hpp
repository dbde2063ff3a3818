#pragma once
// fed-agent's version and git commit, compiled in from CMake (FED_VERSION, FED_GIT_COMMIT).

#include <string_view>

namespace fed::agent {

std::string_view version();
std::string_view git_commit();

}  // namespace fed::agent
