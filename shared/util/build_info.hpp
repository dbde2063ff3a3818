#pragma once
// The version and git commit of this build, compiled in from CMake (FED_VERSION, FED_GIT_COMMIT).
// kubectl-fed and fed-agent report the same values.

#include <string_view>

namespace fed::build {

std::string_view version();  // "0.1.0"
std::string_view git_commit();

}  // namespace fed::build
