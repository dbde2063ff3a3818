#include "plugin/cli/exit_codes.hpp"

namespace fed::plugin {

ExitCode exit_code_for(const Error& error) {
  switch (error.code()) {
    case ErrorCode::Invalid:
      return ExitCode::Usage;
    case ErrorCode::NotFound:
      return ExitCode::NotFound;
    case ErrorCode::Conflict:
      return ExitCode::Conflict;
    case ErrorCode::Permission:
      return ExitCode::Forbidden;
    case ErrorCode::Unavailable:
      return ExitCode::Unavailable;
    case ErrorCode::Internal:
      return ExitCode::Failure;
  }
  return ExitCode::Failure;
}

}  // namespace fed::plugin
