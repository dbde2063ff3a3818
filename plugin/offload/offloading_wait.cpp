#include "plugin/offload/offloading_wait.hpp"

#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/poll.hpp"
#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"

namespace fed::plugin {

using nlohmann::json;

kube::ResourceRef offloading_ref(const std::string& ns) {
  return fedapi::ref_in(fedapi::kNamespaceOffloading, ns,
                        std::string(fedapi::kNamespaceOffloadingName));
}

fedapi::NamespaceOffloadingStatus status_of(const json& off) {
  auto status = fedapi::decode<fedapi::NamespaceOffloadingStatus>(
      off.value("status", json::object()), "status");
  return status ? *std::move(status) : fedapi::NamespaceOffloadingStatus{};
}

std::string phase_of(const json& off) {
  const auto phase = status_of(off).offloading_phase;
  return phase ? std::string(fedapi::to_string(*phase)) : "";
}

std::optional<std::string> refusal_of(const json& off) {
  if (!off.is_object()) return std::nullopt;
  const auto status = status_of(off);
  const auto* accepted = fedapi::find_condition(status.conditions, "Accepted");
  if (accepted == nullptr || accepted->status != "False") return std::nullopt;
  const auto generation =
      off.value("metadata", json::object()).value("generation", std::int64_t{0});
  if (accepted->observed_generation < generation) return std::nullopt;  // about an older spec
  return accepted->reason + ": " + accepted->message;
}

bool ready_for_current_spec(const json& off) {
  if (!off.is_object() || phase_of(off) != "Ready") return false;
  const auto generation =
      off.value("metadata", json::object()).value("generation", std::int64_t{0});
  const auto status = status_of(off);
  for (const auto& [id, conditions] : status.remote_namespaces_conditions) {
    const auto* required = fedapi::find_condition(conditions, fedapi::kConditionOffloadingRequired);
    if (required != nullptr && required->status != "True") return false;
  }
  return status.observed_generation >= generation;
}

std::string clusters_summary(const json& off) {
  std::string out;
  for (const auto& [id, conditions] : status_of(off).remote_namespaces_conditions) {
    std::string ready = "pending";
    if (const auto* c = fedapi::find_condition(conditions, fedapi::kConditionReady)) {
      ready = c->status == "True" ? "Ready" : (c->reason.empty() ? "NotReady" : c->reason);
    }
    out += (out.empty() ? "" : ", ") + id + ": " + ready;
  }
  return out.empty() ? "no member selected yet" : out;
}

Status wait_for_offloading(const HostConnection& connection, const std::string& ns,
                           const std::function<bool(const json&)>& done,
                           std::chrono::milliseconds timeout, const std::string& what,
                           Output& out) {
  kube::DynamicClient& host = *connection.client;
  return poll_until(
      [&]() -> PollResult {
        auto off = host.get(offloading_ref(ns));
        if (!off && !off.error().is_not_found()) return off.error().to_error();
        const json current = off ? *off : json(nullptr);
        if (done(current)) return poll_done();
        FED_TRY(check_still_leading(connection));
        if (const auto refused = refusal_of(current)) {
          return fail(ErrorCode::Invalid,
                      "the manager refused the offloading of " + ns + ": " + *refused);
        }
        if (current.is_null()) return still_waiting("no NamespaceOffloading");
        const std::string phase = phase_of(current);
        return still_waiting("phase " + (phase.empty() ? std::string("(none yet)") : phase) + "; " +
                             clusters_summary(current));
      },
      timeout, what, what + " not done (is the manager running? kubectl fed status)", out);
}

}  // namespace fed::plugin
