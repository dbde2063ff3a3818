#include "shared/etcd/proxy_status.hpp"

#include <nlohmann/json.hpp>

#include <array>

#include "shared/util/rfc3339.hpp"

namespace fed::etcd {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 4> kClassNames = {"idle", "delay", "overload",
                                                         "delay+overload"};

// Reads one field; the error names it with its path so a mismatch is easy to trace.
template <typename T>
Result<T> field(const json& object, std::string_view path, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) {
    return fail(ErrorCode::Invalid, "status document: missing " + std::string(path) + key);
  }
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fail(ErrorCode::Invalid, "status document: " + std::string(path) + key +
                                        " has the wrong type (" + it->type_name() + ")");
  }
}

Result<std::chrono::system_clock::time_point> time_field(const json& object, std::string_view path,
                                                         const char* key) {
  FED_ASSIGN_OR_RETURN(auto text, field<std::string>(object, path, key));
  auto t = util::parse_rfc3339(text);
  if (!t)
    return fail(ErrorCode::Invalid,
                "status document: " + std::string(path) + key + ": " + t.error().message());
  return *t;
}

json member_json(const ProxyMemberStatus& m) {
  return {{"name", m.name},
          {"endpoint", m.endpoint},
          {"id", m.id},
          {"healthy", m.healthy},
          {"leader", m.leader},
          {"raftTerm", m.term},
          {"statusLatencyMs", m.status_latency_ms},
          {"connections", m.connections},
          {"activeConnections", m.active},
          {"picks",
           {{"leader", m.picks_leader},
            {"roundRobin", m.picks_round_robin},
            {"fallback", m.picks_fallback}}},
          {"dialFailures", m.dial_failures},
          {"drainedConnections", m.drained}};
}

Result<ProxyMemberStatus> parse_member(const json& j, const std::string& path) {
  if (!j.is_object())
    return fail(ErrorCode::Invalid, "status document: " + path + " is not an object");
  ProxyMemberStatus m;
  FED_ASSIGN_OR_RETURN(m.name, field<std::string>(j, path, "name"));
  FED_ASSIGN_OR_RETURN(m.endpoint, field<std::string>(j, path, "endpoint"));
  FED_ASSIGN_OR_RETURN(m.id, field<std::string>(j, path, "id"));
  FED_ASSIGN_OR_RETURN(m.healthy, field<bool>(j, path, "healthy"));
  FED_ASSIGN_OR_RETURN(m.leader, field<bool>(j, path, "leader"));
  FED_ASSIGN_OR_RETURN(m.term, field<std::uint64_t>(j, path, "raftTerm"));
  FED_ASSIGN_OR_RETURN(m.status_latency_ms, field<double>(j, path, "statusLatencyMs"));
  FED_ASSIGN_OR_RETURN(m.connections, field<std::uint64_t>(j, path, "connections"));
  FED_ASSIGN_OR_RETURN(m.active, field<std::uint64_t>(j, path, "activeConnections"));
  FED_ASSIGN_OR_RETURN(const json picks, field<json>(j, path, "picks"));
  const std::string picks_path = path + "picks.";
  FED_ASSIGN_OR_RETURN(m.picks_leader, field<std::uint64_t>(picks, picks_path, "leader"));
  FED_ASSIGN_OR_RETURN(m.picks_round_robin, field<std::uint64_t>(picks, picks_path, "roundRobin"));
  FED_ASSIGN_OR_RETURN(m.picks_fallback, field<std::uint64_t>(picks, picks_path, "fallback"));
  FED_ASSIGN_OR_RETURN(m.dial_failures, field<std::uint64_t>(j, path, "dialFailures"));
  FED_ASSIGN_OR_RETURN(m.drained, field<std::uint64_t>(j, path, "drainedConnections"));
  return m;
}

}  // namespace

std::string_view class_name(std::optional<int> leader_class) {
  if (!leader_class || *leader_class < 0 || *leader_class >= static_cast<int>(kClassNames.size())) {
    return "unknown";
  }
  return kClassNames[static_cast<std::size_t>(*leader_class)];
}

json to_json(const ProxyStatus& s) {
  json members = json::array();
  for (const auto& m : s.members) members.push_back(member_json(m));
  json out = {{"policy", s.policy},
              {"raftTerm", s.raft_term},
              {"leaderChanges", s.leader_changes},
              {"members", std::move(members)}};
  // The leader by endpoint and id as well as by index: scripts compare it with etcdctl's view.
  if (s.leader && *s.leader < s.members.size()) {
    out["leader"] = s.members[*s.leader].endpoint;
    out["leaderId"] = s.members[*s.leader].id;
  } else {
    out["leader"] = nullptr;
    out["leaderId"] = nullptr;
  }
  if (s.last_leader_move) {
    out["lastLeaderMove"] = {{"from", s.last_leader_move->from},
                             {"to", s.last_leader_move->to},
                             {"time", util::format_rfc3339(s.last_leader_move->time)}};
  } else {
    out["lastLeaderMove"] = nullptr;
  }
  if (s.classification) {
    const auto& c = *s.classification;
    out["classification"] = {{"class", std::string(class_name(c.leader_class))},
                             {"classIndex", c.leader_class ? json(*c.leader_class) : json()},
                             {"time", util::format_rfc3339(c.time)},
                             {"decision", c.decision},
                             {"moves", c.moves}};
  } else {
    out["classification"] = nullptr;
  }
  return out;
}

std::string to_json_text(const ProxyStatus& status) {
  return to_json(status).dump(2) + "\n";
}

Result<ProxyStatus> parse_proxy_status(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    return fail(ErrorCode::Invalid, std::string("status document is not JSON: ") + e.what());
  }
  if (!j.is_object()) return fail(ErrorCode::Invalid, "status document is not a JSON object");
  ProxyStatus s;
  FED_ASSIGN_OR_RETURN(s.policy, field<std::string>(j, "", "policy"));
  FED_ASSIGN_OR_RETURN(s.raft_term, field<std::uint64_t>(j, "", "raftTerm"));
  FED_ASSIGN_OR_RETURN(s.leader_changes, field<std::uint64_t>(j, "", "leaderChanges"));
  FED_ASSIGN_OR_RETURN(const json members, field<json>(j, "", "members"));
  if (!members.is_array())
    return fail(ErrorCode::Invalid, "status document: members is not a list");
  for (std::size_t i = 0; i < members.size(); ++i) {
    FED_ASSIGN_OR_RETURN(auto m, parse_member(members[i], "members[" + std::to_string(i) + "]."));
    if (m.leader) s.leader = i;
    s.members.push_back(std::move(m));
  }
  if (const auto it = j.find("lastLeaderMove"); it != j.end() && !it->is_null()) {
    ProxyLeaderMove move;
    FED_ASSIGN_OR_RETURN(move.from, field<std::string>(*it, "lastLeaderMove.", "from"));
    FED_ASSIGN_OR_RETURN(move.to, field<std::string>(*it, "lastLeaderMove.", "to"));
    FED_ASSIGN_OR_RETURN(move.time, time_field(*it, "lastLeaderMove.", "time"));
    s.last_leader_move = std::move(move);
  }
  if (const auto it = j.find("classification"); it != j.end() && !it->is_null()) {
    ProxyClassification c;
    if (const auto k = it->find("classIndex"); k != it->end() && !k->is_null()) {
      FED_ASSIGN_OR_RETURN(c.leader_class, field<int>(*it, "classification.", "classIndex"));
    }
    FED_ASSIGN_OR_RETURN(c.time, time_field(*it, "classification.", "time"));
    FED_ASSIGN_OR_RETURN(c.decision, field<std::string>(*it, "classification.", "decision"));
    FED_ASSIGN_OR_RETURN(c.moves, field<std::uint64_t>(*it, "classification.", "moves"));
    s.classification = std::move(c);
  }
  return s;
}

}  // namespace fed::etcd
