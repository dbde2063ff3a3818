#pragma once
// The etcd v3 JSON gateway's wire format (grpc-gateway with etcd's marshaler): request bodies
// built from the plain values in types.hpp and responses parsed back. Keys and values travel as
// base64; 64-bit integers as decimal strings; fields at their zero value are omitted. Pure
// functions, no I/O, so every shape is covered by unit tests.

#include <string>
#include <string_view>

#include "shared/etcd/types.hpp"
#include "shared/result/result.hpp"

namespace fed::etcd::codec {

// Standard padded base64, the gateway's encoding of proto `bytes`.
std::string base64_encode(std::string_view data);
Result<std::string> base64_decode(std::string_view text);

// Request bodies for /v3/kv/range, put, deleterange and txn.
std::string encode(const RangeRequest& r);
std::string encode(const PutRequest& r);
std::string encode(const DeleteRangeRequest& r);
std::string encode(const TxnRequest& r);
// /v3/watch: one create_request object.
std::string encode(const WatchRequest& r);

// Responses of the same endpoints. Invalid errors name the field that did not parse.
Result<RangeResponse> decode_range(std::string_view body);
Result<PutResponse> decode_put(std::string_view body);
Result<DeleteRangeResponse> decode_delete(std::string_view body);
Result<TxnResponse> decode_txn(std::string_view body);
Result<ResponseHeader> decode_header_only(std::string_view body);

// An HTTP status and body that is not a success, or a body holding {"error", "code"}, becomes
// an Error: gRPC codes map to ErrorCode (Unavailable/DeadlineExceeded/"not leader" are
// retryable Unavailable; InvalidArgument Invalid; NotFound; PermissionDenied/Unauthenticated
// Permission; FailedPrecondition and the rest Internal). `what` names the call ("put on
// https://10.0.0.1:2379").
Error decode_error(int http_status, std::string_view body, std::string_view what);

// True when `body` is a gateway error object rather than a response.
bool is_error_body(std::string_view body);

}  // namespace fed::etcd::codec
