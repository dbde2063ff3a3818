#include "shared/etcd/codec_cluster.hpp"

#include "shared/etcd/codec.hpp"
#include "shared/etcd/codec_detail.hpp"

namespace fed::etcd::codec {

using nlohmann::json;
using namespace detail;

namespace {

json leader_key_json(const LeaderKey& k) {
  return {{"name", base64_encode(k.name)},
          {"key", base64_encode(k.key)},
          {"rev", num(k.rev)},
          {"lease", num(k.lease)}};
}

// The first of `names` present in `obj` (status fields are camelCase in etcd's gateway, but
// snake_case is accepted too).
Result<std::uint64_t> uint_any(const json& obj, std::string_view camel, std::string_view snake) {
  if (obj.contains(camel)) return uint_field(obj, camel);
  return uint_field(obj, snake);
}

}  // namespace

std::string encode_lease_grant(std::int64_t ttl_seconds, std::int64_t id) {
  json j = {{"TTL", num(ttl_seconds)}};
  if (id != 0) j["ID"] = num(id);
  return j.dump();
}

std::string encode_lease_id(std::int64_t id) {
  return json{{"ID", num(id)}}.dump();
}

std::string encode_move_leader(std::uint64_t target_member_id) {
  return json{{"targetID", unum(target_member_id)}}.dump();
}

std::string encode_member_add(const std::vector<std::string>& peer_urls, bool is_learner) {
  return json{{"peerURLs", peer_urls}, {"isLearner", is_learner}}.dump();
}

std::string encode_member_id(std::uint64_t id) {
  return json{{"ID", unum(id)}}.dump();
}

std::string encode_campaign(std::string_view name, std::int64_t lease, std::string_view value) {
  return json{{"name", base64_encode(name)}, {"lease", num(lease)}, {"value", base64_encode(value)}}
      .dump();
}

std::string encode_election_name(std::string_view name) {
  return json{{"name", base64_encode(name)}}.dump();
}

std::string encode_leader_key(const LeaderKey& key) {
  return json{{"leader", leader_key_json(key)}}.dump();
}

std::string encode_proclaim(const LeaderKey& key, std::string_view value) {
  return json{{"leader", leader_key_json(key)}, {"value", base64_encode(value)}}.dump();
}

Result<LeaseGrantResponse> decode_lease_grant(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "lease grant"));
  LeaseGrantResponse r;
  FED_ASSIGN_OR_RETURN(r.header, header(j));
  FED_ASSIGN_OR_RETURN(r.id, int_field(j, "ID"));
  FED_ASSIGN_OR_RETURN(r.ttl, int_field(j, "TTL"));
  if (const auto it = j.find("error"); it != j.end() && it->is_string()) {
    return fail(ErrorCode::Unavailable, "lease grant: " + it->get<std::string>());
  }
  return r;
}

Result<LeaseKeepAliveResponse> decode_keepalive(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto text, unwrap_stream_message(body, "lease keepalive"));
  FED_ASSIGN_OR_RETURN(auto j, parse_object(text, "lease keepalive"));
  LeaseKeepAliveResponse r;
  FED_ASSIGN_OR_RETURN(r.header, header(j));
  FED_ASSIGN_OR_RETURN(r.id, int_field(j, "ID"));
  FED_ASSIGN_OR_RETURN(r.ttl, int_field(j, "TTL"));
  return r;
}

Result<StatusResponse> decode_status(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "status"));
  StatusResponse r;
  FED_ASSIGN_OR_RETURN(r.header, header(j));
  if (const auto it = j.find("version"); it != j.end() && it->is_string()) {
    r.version = it->get<std::string>();
  }
  FED_ASSIGN_OR_RETURN(auto db, uint_any(j, "dbSize", "db_size"));
  r.db_size = static_cast<std::int64_t>(db);
  FED_ASSIGN_OR_RETURN(r.leader, uint_field(j, "leader"));
  FED_ASSIGN_OR_RETURN(r.raft_index, uint_any(j, "raftIndex", "raft_index"));
  FED_ASSIGN_OR_RETURN(r.raft_term, uint_any(j, "raftTerm", "raft_term"));
  FED_ASSIGN_OR_RETURN(r.raft_applied_index, uint_any(j, "raftAppliedIndex", "raft_applied_index"));
  r.is_learner = bool_field(j, "isLearner") || bool_field(j, "is_learner");
  if (const auto it = j.find("errors"); it != j.end() && it->is_array()) {
    for (const auto& e : *it) r.errors.push_back(e.is_string() ? e.get<std::string>() : e.dump());
  }
  return r;
}

namespace {

std::vector<std::string> strings_field(const json& m, const char* key) {
  std::vector<std::string> out;
  if (const auto u = m.find(key); u != m.end() && u->is_array()) {
    for (const auto& url : *u) {
      if (url.is_string()) out.push_back(url.get<std::string>());
    }
  }
  return out;
}

Result<MemberInfo> member_of(const json& m, std::string_view what) {
  if (!m.is_object())
    return fail(ErrorCode::Invalid, std::string(what) + ": a member is not an object");
  MemberInfo info;
  FED_ASSIGN_OR_RETURN(info.id, uint_field(m, "ID"));
  if (const auto n = m.find("name"); n != m.end() && n->is_string())
    info.name = n->get<std::string>();
  info.client_urls = strings_field(m, "clientURLs");
  info.peer_urls = strings_field(m, "peerURLs");
  info.is_learner = bool_field(m, "isLearner");
  return info;
}

Result<std::vector<MemberInfo>> members_of(const json& j, std::string_view what) {
  std::vector<MemberInfo> out;
  const auto it = j.find("members");
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array())
    return fail(ErrorCode::Invalid, std::string(what) + ": members is not a list");
  for (const auto& m : *it) {
    FED_ASSIGN_OR_RETURN(auto info, member_of(m, what));
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace

Result<std::vector<MemberInfo>> decode_member_list(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "member list"));
  return members_of(j, "member list");
}

Result<MemberAddResponse> decode_member_add(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "member add"));
  const auto it = j.find("member");
  if (it == j.end()) return fail(ErrorCode::Invalid, "member add: the response has no member");
  MemberAddResponse r;
  FED_ASSIGN_OR_RETURN(r.member, member_of(*it, "member add"));
  FED_ASSIGN_OR_RETURN(r.members, members_of(j, "member add"));
  return r;
}

Result<LeaderKey> decode_campaign(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "campaign"));
  const auto it = j.find("leader");
  if (it == j.end() || !it->is_object()) {
    return fail(ErrorCode::Invalid, "campaign: the response has no leader key");
  }
  LeaderKey k;
  FED_ASSIGN_OR_RETURN(k.name, bytes_field(*it, "name"));
  FED_ASSIGN_OR_RETURN(k.key, bytes_field(*it, "key"));
  FED_ASSIGN_OR_RETURN(k.rev, int_field(*it, "rev"));
  FED_ASSIGN_OR_RETURN(k.lease, int_field(*it, "lease"));
  return k;
}

Result<KeyValue> decode_election_leader(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "election leader"));
  const auto it = j.find("kv");
  if (it == j.end() || !it->is_object()) {
    return fail(ErrorCode::NotFound, "election leader: the election has no leader");
  }
  return key_value(*it);
}

Result<WatchResponse> decode_watch(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto text, unwrap_stream_message(body, "watch"));
  FED_ASSIGN_OR_RETURN(auto j, parse_object(text, "watch"));
  WatchResponse r;
  FED_ASSIGN_OR_RETURN(r.header, header(j));
  FED_ASSIGN_OR_RETURN(r.watch_id, int_field(j, "watch_id"));
  r.created = bool_field(j, "created");
  r.canceled = bool_field(j, "canceled");
  FED_ASSIGN_OR_RETURN(r.compact_revision, int_field(j, "compact_revision"));
  if (const auto it = j.find("cancel_reason"); it != j.end() && it->is_string()) {
    r.cancel_reason = it->get<std::string>();
  }
  if (const auto it = j.find("events"); it != j.end() && it->is_array()) {
    for (const auto& e : *it) {
      WatchEvent ev;
      if (const auto t = e.find("type"); t != e.end() && t->is_string() && *t == "DELETE") {
        ev.type = WatchEvent::Type::Delete;
      }
      if (const auto kv = e.find("kv"); kv != e.end()) {
        FED_ASSIGN_OR_RETURN(ev.kv, key_value(*kv));
      }
      if (const auto pkv = e.find("prev_kv"); pkv != e.end() && pkv->is_object()) {
        FED_ASSIGN_OR_RETURN(auto prev, key_value(*pkv));
        ev.prev_kv = std::move(prev);
      }
      r.events.push_back(std::move(ev));
    }
  }
  return r;
}

Result<std::string> unwrap_stream_message(std::string_view message, std::string_view what) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(message, what));
  if (const auto it = j.find("result"); it != j.end() && it->is_object()) return it->dump();
  if (j.contains("error")) return decode_error(200, message, what);
  return std::string(message);  // some gateways send the message unwrapped
}

std::vector<std::string> StreamSplitter::feed(std::string_view chunk) {
  std::vector<std::string> out;
  buffer_.append(chunk);
  std::size_t start = 0;
  for (std::size_t i = scanned_; i < buffer_.size(); ++i) {
    const char c = buffer_[i];
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      if (depth_ == 0) start = i;
      ++depth_;
    } else if ((c == '}' || c == ']') && depth_ > 0) {
      if (--depth_ == 0) {
        out.emplace_back(buffer_.substr(start, i + 1 - start));
        start = i + 1;
      }
    } else if (depth_ == 0) {
      start = i + 1;  // whitespace between objects
    }
  }
  buffer_.erase(0, depth_ == 0 ? buffer_.size() : start);
  scanned_ = buffer_.size();
  return out;
}

}  // namespace fed::etcd::codec
