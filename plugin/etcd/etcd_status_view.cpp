#include "plugin/etcd/etcd_status_view.hpp"

#include <cstdio>

#include "shared/util/rfc3339.hpp"

namespace fed::plugin {
namespace {

std::string millis(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fms", ms);
  return buf;
}

std::string when(std::chrono::system_clock::time_point t,
                 std::chrono::system_clock::time_point now) {
  return util::format_rfc3339(t) + " (" + age(t, now) + " ago)";
}

}  // namespace

std::string age(std::chrono::system_clock::time_point then,
                std::chrono::system_clock::time_point now) {
  using std::chrono::duration_cast;
  const auto s = duration_cast<std::chrono::seconds>(now - then).count();
  if (s < 0) return "0s";
  if (s < 120) return std::to_string(s) + "s";
  if (s < 2 * 3600) return std::to_string(s / 60) + "m";
  if (s < 2 * 86400) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

Table etcd_member_table(const etcd::ProxyStatus& status) {
  Table t;
  t.headers = {"NAME", "ENDPOINT",    "ID",     "HEALTHY", "LEADER",        "TERM",
               "RTT",  "CONNECTIONS", "ACTIVE", "PICKS",   "DIAL-FAILURES", "DRAINED"};
  for (const auto& m : status.members) {
    t.rows.push_back({m.name.empty() ? "<unknown>" : m.name, m.endpoint,
                      m.id.empty() ? "<unknown>" : m.id, m.healthy ? "yes" : "no",
                      m.leader ? "*" : "", std::to_string(m.term),
                      m.healthy ? millis(m.status_latency_ms) : "-", std::to_string(m.connections),
                      std::to_string(m.active),
                      std::to_string(m.picks_leader) + "/" + std::to_string(m.picks_round_robin) +
                          "/" + std::to_string(m.picks_fallback),
                      std::to_string(m.dial_failures), std::to_string(m.drained)});
  }
  return t;
}

std::string render_etcd_status(const etcd::ProxyStatus& s,
                               std::chrono::system_clock::time_point now) {
  std::string out = "Policy:          " + s.policy + "\n";
  if (s.leader && *s.leader < s.members.size()) {
    const auto& l = s.members[*s.leader];
    out += "Leader:          " + l.endpoint + " (id " + l.id + ")\n";
  } else {
    out += "Leader:          <unknown> (no member named one in the last polls)\n";
  }
  out += "Raft term:       " + std::to_string(s.raft_term) + "\n";
  out += "Leader changes:  " + std::to_string(s.leader_changes);
  if (s.last_leader_move) {
    const auto& m = *s.last_leader_move;
    out += ", last " + m.from + " -> " + m.to + " at " + when(m.time, now);
  }
  out += "\n";
  if (s.classification) {
    const auto& c = *s.classification;
    out += "Classification:  " + std::string(etcd::class_name(c.leader_class)) + " at " +
           when(c.time, now) + "\n";
    out += "Classifier:      " + c.decision + " (" + std::to_string(c.moves) + " move(s))\n";
  }
  out += "\n" + render_table(etcd_member_table(s));
  return out;
}

}  // namespace fed::plugin
