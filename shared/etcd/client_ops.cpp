// EtcdClient's KV, lease, watch and election calls: encode, route through call()/stream(),
// decode. Routing and polling live in client.cpp.
#include <string>

#include "shared/etcd/client.hpp"
#include "shared/etcd/codec.hpp"
#include "shared/etcd/codec_cluster.hpp"

namespace fed::etcd {

Result<RangeResponse> EtcdClient::range(const RangeRequest& request) {
  FED_ASSIGN_OR_RETURN(auto body,
                       call("/v3/kv/range", codec::encode(request), Retry::Always, "range"));
  return codec::decode_range(body);
}

Result<PutResponse> EtcdClient::put(const PutRequest& request) {
  FED_ASSIGN_OR_RETURN(auto body,
                       call("/v3/kv/put", codec::encode(request), Retry::OnlyUnsent, "put"));
  return codec::decode_put(body);
}

Result<DeleteRangeResponse> EtcdClient::delete_range(const DeleteRangeRequest& request) {
  FED_ASSIGN_OR_RETURN(auto body, call("/v3/kv/deleterange", codec::encode(request),
                                       Retry::OnlyUnsent, "deleterange"));
  return codec::decode_delete(body);
}

Result<TxnResponse> EtcdClient::txn(const TxnRequest& request,
                                    std::optional<std::chrono::milliseconds> timeout) {
  FED_ASSIGN_OR_RETURN(auto body, call("/v3/kv/txn", codec::encode(request), Retry::OnlyUnsent,
                                       "txn", std::nullopt, timeout));
  return codec::decode_txn(body);
}

Result<LeaseGrantResponse> EtcdClient::lease_grant(std::int64_t ttl_seconds, std::int64_t id) {
  FED_ASSIGN_OR_RETURN(auto body,
                       call("/v3/lease/grant", codec::encode_lease_grant(ttl_seconds, id),
                            Retry::OnlyUnsent, "lease grant"));
  return codec::decode_lease_grant(body);
}

Result<LeaseKeepAliveResponse> EtcdClient::lease_keepalive_once(std::int64_t id) {
  // The gateway turns one POST into a keep-alive stream of one request: one answer, then EOF.
  FED_ASSIGN_OR_RETURN(auto body, call("/v3/lease/keepalive", codec::encode_lease_id(id),
                                       Retry::Always, "lease keepalive"));
  codec::StreamSplitter splitter;
  auto messages = splitter.feed(body);
  if (messages.empty()) {
    return fail(ErrorCode::Unavailable,
                "lease keepalive: empty answer for lease " + std::to_string(id));
  }
  return codec::decode_keepalive(messages.front());
}

Status EtcdClient::lease_revoke(std::int64_t id) {
  FED_TRY(call("/v3/lease/revoke", codec::encode_lease_id(id), Retry::OnlyUnsent, "lease revoke"));
  return ok();
}

Status EtcdClient::watch(const WatchRequest& request,
                         const std::function<bool(const WatchResponse&)>& on_response,
                         std::stop_token stop) {
  Status inner = ok();
  FED_TRY(stream(
      "/v3/watch", codec::encode(request), "watch",
      [&](std::string_view message) {
        auto r = codec::decode_watch(message);
        if (!r) {
          inner = std::move(r).error();
          return false;
        }
        return on_response(*r);
      },
      std::move(stop)));
  return inner;
}

Result<LeaderKey> EtcdClient::campaign(std::string_view name, std::int64_t lease,
                                       std::string_view value, std::stop_token stop) {
  // Campaign blocks server-side until elected, so it runs as a stream: no time limit, stoppable.
  Result<LeaderKey> out = fail(ErrorCode::Unavailable, "campaign: no answer");
  FED_TRY(stream(
      "/v3/election/campaign", codec::encode_campaign(name, lease, value), "campaign",
      [&](std::string_view message) {
        out = codec::is_error_body(message)
                  ? Result<LeaderKey>(codec::decode_error(200, message, "campaign"))
                  : codec::decode_campaign(message);
        return false;
      },
      stop));
  if (stop.stop_requested() && !out) return fail(ErrorCode::Unavailable, "campaign: stopped");
  return out;
}

Status EtcdClient::proclaim(const LeaderKey& key, std::string_view value) {
  FED_TRY(call("/v3/election/proclaim", codec::encode_proclaim(key, value), Retry::OnlyUnsent,
               "proclaim"));
  return ok();
}

Status EtcdClient::resign(const LeaderKey& key) {
  FED_TRY(call("/v3/election/resign", codec::encode_leader_key(key), Retry::OnlyUnsent, "resign"));
  return ok();
}

Result<KeyValue> EtcdClient::election_leader(std::string_view name) {
  FED_ASSIGN_OR_RETURN(auto body, call("/v3/election/leader", codec::encode_election_name(name),
                                       Retry::Always, "election leader"));
  return codec::decode_election_leader(body);
}

Status EtcdClient::observe(std::string_view name,
                           const std::function<bool(const KeyValue&)>& on_leader,
                           std::stop_token stop) {
  Status inner = ok();
  FED_TRY(stream(
      "/v3/election/observe", codec::encode_election_name(name), "observe",
      [&](std::string_view message) {
        auto text = codec::unwrap_stream_message(message, "observe");
        auto kv =
            text ? codec::decode_election_leader(*text) : Result<KeyValue>(std::move(text).error());
        if (!kv) {
          inner = std::move(kv).error();
          return false;
        }
        return on_leader(*kv);
      },
      std::move(stop)));
  return inner;
}

}  // namespace fed::etcd
