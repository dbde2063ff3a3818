#include "agent/manager/ha/state_store.hpp"

namespace fed::ha {

namespace {

Unexpected refused(std::string_view verb, const StateKey& key) {
  return fail(ErrorCode::Permission, "not the leader (fenced): " + std::string(verb) + " of " +
                                         to_string(key) + " refused");
}

// The object must be the one the key names: a restore creates it under the key's identity, so a
// mismatch would create or update the wrong object on the next leader's host.
Status check_identity(const StateKey& key, const nlohmann::json& object) {
  const auto bad = [&](const std::string& why) {
    return fail(ErrorCode::Invalid, "state " + to_string(key) + ": " + why);
  };
  if (!object.is_object()) return bad("the object is not a JSON object");
  const auto meta = object.value("metadata", nlohmann::json::object());
  const auto name = meta.value("name", std::string());
  const auto ns = meta.value("namespace", std::string());
  if (name != key.name) return bad("the object's metadata.name is '" + name + "'");
  if (ns != key.ns) return bad("the object's metadata.namespace is '" + ns + "'");
  return ok();
}

}  // namespace

StateStore::StateStore(etcd::EtcdClient& client, FenceFunction fence, std::string prefix)
    : client_(client), fence_(std::move(fence)), prefix_(std::move(prefix)) {
  // The same normalisation state_etcd_key applies, so that load()'s range covers its keys.
  if (prefix_.empty() || prefix_.back() != '/') prefix_ += '/';
}

Status StateStore::fenced(const StateKey& key, etcd::TxnOp op, std::string_view verb) {
  // Read the fence at the last moment: a leader that stopped leading has none.
  const std::optional<etcd::Compare> fence = fence_ ? fence_() : std::nullopt;
  if (!fence) return refused(verb, key);
  etcd::TxnRequest txn;
  txn.compare.push_back(*fence);
  txn.success.push_back(std::move(op));
  auto done = client_.txn(txn);
  if (!done) {
    return Unexpected(std::move(done).error().with_context("state " + std::string(verb) + " of " +
                                                           to_string(key)));
  }
  if (!done->succeeded) return refused(verb, key);
  return ok();
}

Status StateStore::put(const StateKey& key, const nlohmann::json& object) {
  FED_TRY(check_state_key(key));
  FED_TRY(check_identity(key, object));
  etcd::TxnOp op;
  op.kind = etcd::TxnOp::Kind::Put;
  op.put.key = state_etcd_key(prefix_, key);
  // nlohmann::json keeps object keys sorted: equal objects are equal bytes.
  op.put.value = stored_form(object).dump();
  return fenced(key, std::move(op), "write");
}

Status StateStore::remove(const StateKey& key) {
  FED_TRY(check_state_key(key));
  etcd::TxnOp op;
  op.kind = etcd::TxnOp::Kind::Delete;
  op.del.key = state_etcd_key(prefix_, key);
  return fenced(key, std::move(op), "delete");
}

Result<std::vector<std::pair<StateKey, nlohmann::json>>> StateStore::load() {
  etcd::RangeRequest req;
  req.key = prefix_;
  req.range_end = prefix_range_end(prefix_);
  req.serializable = false;  // linearizable: what a majority committed, not one member's view
  auto got = client_.range(req);
  if (!got) return Unexpected(std::move(got).error().with_context("state load of " + prefix_));
  std::vector<std::pair<StateKey, nlohmann::json>> out;
  out.reserve(got->kvs.size());
  for (const auto& kv : got->kvs) {
    FED_ASSIGN_OR_RETURN(StateKey key, parse_state_etcd_key(prefix_, kv.key));
    auto object = nlohmann::json::parse(kv.value, nullptr, /*allow_exceptions=*/false);
    if (!object.is_object()) {
      return fail(ErrorCode::Invalid, "state key " + kv.key +
                                          ": the value is not a JSON object (not written by " +
                                          "StateStore: delete the key)");
    }
    out.emplace_back(std::move(key), std::move(object));
  }
  return out;
}

Result<std::int64_t> StateStore::revision() {
  etcd::RangeRequest req;
  req.key = prefix_;
  req.range_end = prefix_range_end(prefix_);
  req.count_only = true;  // only the header's revision is wanted
  auto got = client_.range(req);
  if (!got) return Unexpected(std::move(got).error().with_context("state revision"));
  return got->header.revision;
}

}  // namespace fed::ha
