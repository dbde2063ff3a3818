#include "shared/kube/token_credentials.hpp"

#include <fmt/format.h>

#include "shared/util/read_file.hpp"
#include "shared/util/strings.hpp"

namespace fed::kube {

Result<std::string> TokenFileCredential::token() {
  auto data = util::read_file(path_);
  if (!data) {
    if (!fallback_.empty()) return fallback_;
    // A file the kubeconfig names is input: missing or unreadable, it is bad input (exit 2).
    return fail(ErrorCode::Invalid,
                fmt::format("cannot read the token file of {} ({}); fix the path or the file's "
                            "permissions",
                            setting_, data.error().message()));
  }
  std::string token(util::trim(*data));
  if (token.empty()) {
    if (!fallback_.empty()) return fallback_;
    return fail(ErrorCode::Invalid,
                fmt::format("the token file {} of {} is empty; write the bearer token into it",
                            path_.string(), setting_));
  }
  return token;
}

}  // namespace fed::kube
