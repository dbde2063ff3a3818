#include "cmd/join_wait.hpp"

#include <thread>

#include "cmd/join_plan.hpp"
#include "fedapi/group.hpp"
#include "util/duration.hpp"

namespace fed::plugin {

Result<nlohmann::json> wait_until_ready(kube::DynamicClient& host, const std::string& member,
                                        std::chrono::milliseconds timeout, Output& out) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + timeout;
  std::string last;
  std::string reason = "the FederatedCluster was never read";
  while (true) {
    auto fc = host.get(fedapi::ref(fedapi::kFederatedCluster, member));
    if (fc) {
      auto why = not_ready_reason(*fc);
      if (!why) return std::move(*fc);
      reason = *why;
    } else if (!fc.error().is_not_found() && fc.error().code() != ErrorCode::Unavailable) {
      return fail(fc.error().code(),
                  "reading FederatedCluster " + member + ": " + fc.error().to_error().message());
    } else {
      reason = fc.error().to_error().message();
    }
    if (reason != last) {
      out.progress("waiting for " + member + ": " + reason);
      last = reason;
    }
    if (clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return fail(
      ErrorCode::Unavailable,
      "member " + member + " not Ready after " +
          util::format_duration(std::chrono::duration_cast<std::chrono::nanoseconds>(timeout)) +
          ": " + reason);
}

}  // namespace fed::plugin
