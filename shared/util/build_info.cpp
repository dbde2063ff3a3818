#include "shared/util/build_info.hpp"

#ifndef FED_VERSION
#error "FED_VERSION must be defined by CMake"
#endif
#ifndef FED_GIT_COMMIT
#error "FED_GIT_COMMIT must be defined by CMake"
#endif

namespace fed::build {

std::string_view version() {
  return FED_VERSION;
}
std::string_view git_commit() {
  return FED_GIT_COMMIT;
}

}  // namespace fed::build
