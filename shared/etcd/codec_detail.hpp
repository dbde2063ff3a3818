#pragma once
// Helpers the codec files share: lenient number reading (the gateway writes int64 as strings),
// header and key-value decoding. Internal to shared/etcd; nlohmann exceptions stay in here.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "shared/etcd/types.hpp"
#include "shared/result/result.hpp"

namespace fed::etcd::codec::detail {

// Parses `body` as a JSON object; Invalid names `what` on syntax errors or a non-object.
Result<nlohmann::json> parse_object(std::string_view body, std::string_view what);

// Reads field `name` of `obj` as an integer written as a number or a decimal string; a missing
// field is 0 (the gateway omits zero values). Invalid on anything else.
Result<std::int64_t> int_field(const nlohmann::json& obj, std::string_view name);
Result<std::uint64_t> uint_field(const nlohmann::json& obj, std::string_view name);
// A base64 field decoded; missing is empty.
Result<std::string> bytes_field(const nlohmann::json& obj, std::string_view name);
// A boolean field; missing is false.
bool bool_field(const nlohmann::json& obj, std::string_view name);

Result<ResponseHeader> header(const nlohmann::json& obj);
Result<KeyValue> key_value(const nlohmann::json& obj);

// JSON for int64 the way the gateway accepts it (a decimal string).
std::string num(std::int64_t v);
std::string unum(std::uint64_t v);

}  // namespace fed::etcd::codec::detail
