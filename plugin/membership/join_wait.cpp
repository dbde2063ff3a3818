#include "plugin/membership/join_wait.hpp"

#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/poll.hpp"
#include "plugin/membership/join_plan.hpp"
#include "shared/fedapi/group.hpp"

namespace fed::plugin {

Result<nlohmann::json> wait_until_ready(const GlobalOptions& global, HostConnection& leader,
                                        const std::string& member,
                                        std::chrono::milliseconds timeout, Output& out,
                                        std::int64_t written_generation) {
  nlohmann::json ready;
  FED_TRY(poll_until(
      [&]() -> PollResult {
        const std::string before = leader.cluster_id;
        if (auto followed = follow_leader(global, leader, out.err()); !followed) {
          return still_waiting(followed.error().message());
        }
        // The new leader's copy has a generation of its own; its reports are all about this spec.
        if (leader.cluster_id != before) written_generation = 0;
        auto fc = leader.client->get(fedapi::ref(fedapi::kFederatedCluster, member));
        if (fc) {
          if (auto blocked = join_blocker(*fc, written_generation)) {
            const std::string endpoint =
                fc->value("spec", nlohmann::json::object()).value("apiEndpoint", "");
            return fail(ErrorCode::Unavailable,
                        "member " + member + " cannot be peered: the manager reports " + *blocked +
                            " (API endpoint " + endpoint +
                            ": the host's pods must reach it; --member-api-endpoint sets it)");
          }
          auto why = not_ready_reason(*fc);
          if (!why) ready = std::move(*fc);
          return why;
        }
        if (!fc.error().is_not_found() && fc.error().code() != ErrorCode::Unavailable) {
          return fail(fc.error().code(), "reading FederatedCluster " + member + " on host " +
                                             leader.cluster_id + ": " +
                                             fc.error().to_error().message());
        }
        return still_waiting(fc.error().to_error().message());
      },
      timeout, member, "member " + member + " not Ready", out));
  return ready;
}

}  // namespace fed::plugin
