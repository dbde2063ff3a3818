#include "plugin/connect/poll.hpp"

#include <thread>

#include "shared/util/duration.hpp"

namespace fed::plugin {

Status poll_until(const PollCheck& check, std::chrono::milliseconds timeout,
                  const std::string& subject, const std::string& headline, Output& out,
                  std::chrono::milliseconds interval) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + timeout;
  std::string last;
  while (true) {
    FED_ASSIGN_OR_RETURN(auto reason, check());
    if (!reason) return ok();
    if (*reason != last) out.progress("waiting for " + subject + ": " + *reason);
    last = *reason;
    if (clock::now() >= deadline) {
      return fail(
          ErrorCode::Unavailable,
          headline + " after " +
              util::format_duration(std::chrono::duration_cast<std::chrono::nanoseconds>(timeout)) +
              ": " + last);
    }
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace fed::plugin
