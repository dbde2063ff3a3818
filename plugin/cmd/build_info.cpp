#include "cmd/build_info.hpp"

#ifndef FED_VERSION
#error "FED_VERSION must be defined by CMake"
#endif
#ifndef FED_GIT_COMMIT
#error "FED_GIT_COMMIT must be defined by CMake"
#endif

namespace fed::plugin {

std::string_view client_version() {
  return FED_VERSION;
}
std::string_view client_git_commit() {
  return FED_GIT_COMMIT;
}

}  // namespace fed::plugin
