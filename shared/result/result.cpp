#include "shared/result/result.hpp"

namespace fed {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::Invalid:
      return "Invalid";
    case ErrorCode::NotFound:
      return "NotFound";
    case ErrorCode::Conflict:
      return "Conflict";
    case ErrorCode::Permission:
      return "Permission";
    case ErrorCode::Unavailable:
      return "Unavailable";
    case ErrorCode::Internal:
      return "Internal";
  }
  return "Unknown";
}

}  // namespace fed
