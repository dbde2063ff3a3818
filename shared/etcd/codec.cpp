#include "shared/etcd/codec.hpp"

#include <openssl/evp.h>

#include "shared/etcd/codec_detail.hpp"

namespace fed::etcd::codec {

using nlohmann::json;
using namespace detail;

std::string base64_encode(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(data.data()),
                                static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

Result<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return fail(ErrorCode::Invalid, "base64 text of " + std::to_string(text.size()) +
                                        " bytes is not a multiple of 4 long");
  }
  std::string out(text.size() / 4 * 3 + 1, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return fail(ErrorCode::Invalid, "invalid base64 text");
  // EVP_DecodeBlock keeps the bytes padding stands for; drop one per '='.
  std::size_t len = static_cast<std::size_t>(n);
  // At most two '=' are padding; more (or padding where data should be) is not base64, and
  // counting them all underflowed `len` (found by the etcd_answers fuzz target: "====").
  std::size_t padding = 0;
  for (std::size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) ++padding;
  if (padding > 2 || padding > len) return fail(ErrorCode::Invalid, "invalid base64 padding");
  len -= padding;
  out.resize(len);
  return out;
}

namespace {

json range_json(const RangeRequest& r) {
  json j = {{"key", base64_encode(r.key)}};
  if (!r.range_end.empty()) j["range_end"] = base64_encode(r.range_end);
  if (r.limit != 0) j["limit"] = num(r.limit);
  if (r.revision != 0) j["revision"] = num(r.revision);
  if (r.serializable) j["serializable"] = true;
  if (r.keys_only) j["keys_only"] = true;
  if (r.count_only) j["count_only"] = true;
  return j;
}

json put_json(const PutRequest& r) {
  json j = {{"key", base64_encode(r.key)}, {"value", base64_encode(r.value)}};
  if (r.lease != 0) j["lease"] = num(r.lease);
  if (r.prev_kv) j["prev_kv"] = true;
  return j;
}

json delete_json(const DeleteRangeRequest& r) {
  json j = {{"key", base64_encode(r.key)}};
  if (!r.range_end.empty()) j["range_end"] = base64_encode(r.range_end);
  if (r.prev_kv) j["prev_kv"] = true;
  return j;
}

json op_json(const TxnOp& op) {
  switch (op.kind) {
    case TxnOp::Kind::Range:
      return {{"request_range", range_json(op.range)}};
    case TxnOp::Kind::Put:
      return {{"request_put", put_json(op.put)}};
    case TxnOp::Kind::Delete:
      return {{"request_delete_range", delete_json(op.del)}};
  }
  return json::object();
}

json compare_json(const Compare& c) {
  static constexpr const char* kResults[] = {"EQUAL", "GREATER", "LESS", "NOT_EQUAL"};
  static constexpr const char* kTargets[] = {"VERSION", "CREATE", "MOD", "VALUE", "LEASE"};
  json j = {{"result", kResults[static_cast<int>(c.result)]},
            {"target", kTargets[static_cast<int>(c.target)]},
            {"key", base64_encode(c.key)}};
  switch (c.target) {
    case Compare::Target::Version:
      j["version"] = num(c.number);
      break;
    case Compare::Target::Create:
      j["create_revision"] = num(c.number);
      break;
    case Compare::Target::Mod:
      j["mod_revision"] = num(c.number);
      break;
    case Compare::Target::Value:
      j["value"] = base64_encode(c.value);
      break;
    case Compare::Target::Lease:
      j["lease"] = num(c.number);
      break;
  }
  return j;
}

Result<std::vector<KeyValue>> kv_list(const json& obj, std::string_view name) {
  std::vector<KeyValue> out;
  const auto it = obj.find(name);
  if (it == obj.end() || !it->is_array()) return out;
  for (const auto& e : *it) {
    FED_ASSIGN_OR_RETURN(auto kv, key_value(e));
    out.push_back(std::move(kv));
  }
  return out;
}

Result<RangeResponse> range_from(const json& j) {
  RangeResponse r;
  FED_ASSIGN_OR_RETURN(r.header, header(j));
  FED_ASSIGN_OR_RETURN(r.kvs, kv_list(j, "kvs"));
  r.more = bool_field(j, "more");
  FED_ASSIGN_OR_RETURN(r.count, int_field(j, "count"));
  return r;
}

Result<PutResponse> put_from(const json& j) {
  PutResponse r;
  FED_ASSIGN_OR_RETURN(r.header, header(j));
  if (const auto it = j.find("prev_kv"); it != j.end() && it->is_object()) {
    FED_ASSIGN_OR_RETURN(auto kv, key_value(*it));
    r.prev_kv = std::move(kv);
  }
  return r;
}

Result<DeleteRangeResponse> delete_from(const json& j) {
  DeleteRangeResponse r;
  FED_ASSIGN_OR_RETURN(r.header, header(j));
  FED_ASSIGN_OR_RETURN(r.deleted, int_field(j, "deleted"));
  FED_ASSIGN_OR_RETURN(r.prev_kvs, kv_list(j, "prev_kvs"));
  return r;
}

ErrorCode grpc_to_error_code(std::int64_t code, std::string_view message) {
  if (message.find("not leader") != std::string_view::npos) return ErrorCode::Unavailable;
  switch (code) {
    case 3:
    case 11:
      return ErrorCode::Invalid;  // InvalidArgument, OutOfRange
    case 5:
      return ErrorCode::NotFound;  // NotFound
    case 6:
    case 10:
      return ErrorCode::Conflict;  // AlreadyExists, Aborted
    case 7:
    case 16:
      return ErrorCode::Permission;  // PermissionDenied, Unauthenticated
    case 4:
    case 8:
    case 14:
      return ErrorCode::Unavailable;  // Deadline, Exhausted, Unavailable
    default:
      return ErrorCode::Internal;
  }
}

}  // namespace

std::string encode(const RangeRequest& r) {
  return range_json(r).dump();
}
std::string encode(const PutRequest& r) {
  return put_json(r).dump();
}
std::string encode(const DeleteRangeRequest& r) {
  return delete_json(r).dump();
}

std::string encode(const TxnRequest& r) {
  json j = {{"compare", json::array()}, {"success", json::array()}, {"failure", json::array()}};
  for (const auto& c : r.compare) j["compare"].push_back(compare_json(c));
  for (const auto& op : r.success) j["success"].push_back(op_json(op));
  for (const auto& op : r.failure) j["failure"].push_back(op_json(op));
  return j.dump();
}

std::string encode(const WatchRequest& r) {
  json c = {{"key", base64_encode(r.key)}};
  if (!r.range_end.empty()) c["range_end"] = base64_encode(r.range_end);
  if (r.start_revision != 0) c["start_revision"] = num(r.start_revision);
  if (r.prev_kv) c["prev_kv"] = true;
  if (r.progress_notify) c["progress_notify"] = true;
  return json{{"create_request", c}}.dump();
}

Result<RangeResponse> decode_range(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "range"));
  return range_from(j);
}

Result<PutResponse> decode_put(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "put"));
  return put_from(j);
}

Result<DeleteRangeResponse> decode_delete(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "deleterange"));
  return delete_from(j);
}

Result<TxnResponse> decode_txn(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "txn"));
  TxnResponse r;
  FED_ASSIGN_OR_RETURN(r.header, header(j));
  r.succeeded = bool_field(j, "succeeded");
  const auto it = j.find("responses");
  if (it == j.end() || !it->is_array()) return r;
  for (const auto& e : *it) {
    TxnOpResponse op;
    if (auto f = e.find("response_range"); f != e.end()) {
      op.kind = TxnOp::Kind::Range;
      FED_ASSIGN_OR_RETURN(op.range, range_from(*f));
    } else if (f = e.find("response_put"); f != e.end()) {
      op.kind = TxnOp::Kind::Put;
      FED_ASSIGN_OR_RETURN(op.put, put_from(*f));
    } else if (f = e.find("response_delete_range"); f != e.end()) {
      op.kind = TxnOp::Kind::Delete;
      FED_ASSIGN_OR_RETURN(op.del, delete_from(*f));
    } else {
      return fail(ErrorCode::Invalid, "txn: unknown response op " + e.dump());
    }
    r.responses.push_back(std::move(op));
  }
  return r;
}

Result<ResponseHeader> decode_header_only(std::string_view body) {
  FED_ASSIGN_OR_RETURN(auto j, parse_object(body, "response"));
  return header(j);
}

bool is_error_body(std::string_view body) {
  if (body.find("\"error\"") == std::string_view::npos) return false;
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("error") && !j.contains("header");
}

Error decode_error(int http_status, std::string_view body, std::string_view what) {
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("error")) {
    const std::string message =
        j["error"].is_string() ? j["error"].get<std::string>() : j["error"].dump();
    std::int64_t code = 2;
    if (auto c = int_field(j, "code")) code = *c;
    return Error(grpc_to_error_code(code, message),
                 std::string(what) + ": " + message + " (gRPC code " + std::to_string(code) + ")");
  }
  const ErrorCode code = http_status >= 500 || http_status == 429   ? ErrorCode::Unavailable
                         : http_status == 404                       ? ErrorCode::NotFound
                         : http_status == 401 || http_status == 403 ? ErrorCode::Permission
                                                                    : ErrorCode::Internal;
  return Error(code, std::string(what) + ": HTTP " + std::to_string(http_status) + ": " +
                         std::string(body.substr(0, 200)));
}

}  // namespace fed::etcd::codec
