// kubectl fed host remove (docs/HA.md): checks that the federation keeps a quorum without the
// host, hands the leadership over when the host leads (leader_handover.hpp), deletes its
// FederationHost on the leader's host (the leading manager removes its etcd member, then the
// finalizer), waits for that, and removes everything of kubectl-fed from the removed cluster
// when --host-context reaches it.

#include <ostream>

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/connect/commit_wait.hpp"
#include "plugin/connect/leader_connection.hpp"
#include "plugin/connect/poll.hpp"
#include "plugin/host/host.hpp"
#include "plugin/host/host_checks.hpp"
#include "plugin/host/leader_handover.hpp"
#include "plugin/membership/member_cleanup.hpp"
#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/group.hpp"

namespace fed::plugin {
using nlohmann::json;

Status run_host_remove(const GlobalOptions& global, const HostOptions& o, Output& out) {
  FED_ASSIGN_OR_RETURN(auto first, connect_leader_host(global, out.err()));
  FED_ASSIGN_OR_RETURN(auto hosts,
                       first.client->list_all(fedapi::ref(fedapi::kFederationHost, "")));
  FED_TRY(check_removal_keeps_quorum(hosts, o.name));
  const std::size_t remaining = hosts.value("items", json::array()).size() - 1;
  const bool cleanup = !o.host_flags.context.empty() || !o.host_flags.kubeconfig.empty();
  const bool handover = o.name == first.cluster_id;
  if (o.dry_run == DryRun::Client) {
    out.print(
        json{{"host", o.name}, {"result", "removed"}, {"handover", handover}, {"dryRun", true}},
        [&](std::ostream& os) {
          if (handover) {
            os << "the federation's leadership handed over from " << o.name
               << " to another host (dry run)\n";
          }
          os << "federationhost/" << o.name << " deleted (dry run)\n";
          if (cleanup) os << "every object of kubectl-fed on " << o.name << " deleted (dry run)\n";
        });
    return ok();
  }
  if (handover) {
    std::vector<std::string> others;
    for (const auto& h : hosts.value("items", json::array())) {
      const std::string name = h["metadata"].value("name", "");
      if (name != o.name) others.push_back(name);
    }
    FED_ASSIGN_OR_RETURN(auto reached, hand_leadership_over(global, first, others, o.timeout, out));
    first = std::move(reached.host);
  }

  const auto ref = fedapi::ref(fedapi::kFederationHost, o.name);
  out.progress("Removing host " + o.name + "'s etcd member...");
  if (auto deleted = first.client->remove(ref); !deleted && !deleted.error().is_not_found()) {
    return deleted.error().to_error();
  }
  FED_TRY(poll_until(
      [&]() -> PollResult {
        // Removing a member can move the leadership: the new leader reports on its own host.
        if (auto followed = follow_leader(global, first, out.err()); !followed) {
          return still_waiting(followed.error().message());
        }
        auto h = first.client->get(ref);
        if (!h && h.error().is_not_found()) return poll_done();
        if (!h) return fail(h.error().code(), h.error().to_error().message());
        const auto conditions = fedapi::read_conditions(h->value("status", json::object()));
        const fedapi::Condition* ready = fedapi::find_condition(conditions, "Ready");
        return still_waiting(ready && !ready->message.empty()
                                 ? ready->message
                                 : "the leading manager has not removed its member yet");
      },
      o.timeout, "host " + o.name + "'s etcd member to be removed",
      "the leading manager did not remove " + o.name + "'s etcd member", out));
  FED_TRY(wait_committed(first, ref, out));

  std::vector<std::string> removed;
  if (cleanup) {
    FED_ASSIGN_OR_RETURN(auto gone, connect_member(global, o.host_flags, o.name, ""));
    FED_ASSIGN_OR_RETURN(removed, remove_labelled(*gone.client, o.timeout, out));
    FED_TRY(unlabel_gateways(*gone.client));
  }
  json result{{"host", o.name},
              {"result", "removed"},
              {"handover", handover},
              {"hosts", remaining},
              {"objectsDeleted", removed.size()}};
  out.print(result, [&](std::ostream& os) {
    os << "host " << o.name << " removed: its etcd member left the federation etcd (" << remaining
       << " hosts remain)";
    if (cleanup) {
      os << "; " << removed.size() << " objects of kubectl-fed deleted from it";
    } else {
      os << "; pass --host-context to also delete kubectl-fed from it";
    }
    os << "\n";
  });
  if (remaining % 2 == 0) {
    out.err() << "warning: " << remaining << " hosts tolerate no more lost hosts than "
              << remaining - 1 << " do; add or remove one\n";
  }
  return ok();
}

}  // namespace fed::plugin
