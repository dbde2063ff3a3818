#include "shared/fedapi/probe_answer.hpp"

#include <string_view>

namespace fed::fedapi {
namespace {

constexpr std::string_view kPrefix = "kubectl-fed-probe ";
constexpr std::string_view kFrom = " from ";

}  // namespace

std::string probe_answer_line(const std::string& id, const std::string& source) {
  return std::string(kPrefix) + id + std::string(kFrom) + source + "\n";
}

Result<std::string> parse_probe_answer(std::string line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  const auto from = line.rfind(kFrom);
  if (line.rfind(kPrefix, 0) != 0 || from == std::string::npos ||
      from + kFrom.size() >= line.size()) {
    return fail(ErrorCode::Invalid, "not a kubectl-fed probe answer: \"" + line + "\"");
  }
  return line.substr(from + kFrom.size());
}

}  // namespace fed::fedapi
