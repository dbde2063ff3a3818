#include "shared/etcd/codec_detail.hpp"

#include <charconv>

#include "shared/etcd/codec.hpp"

namespace fed::etcd::codec::detail {
namespace {

template <typename T>
Result<T> integer(const nlohmann::json& obj, std::string_view name) {
  const auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return T{0};
  if (it->is_number_integer()) return it->get<T>();
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    T v{};
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && ptr == s.data() + s.size()) return v;
  }
  return fail(ErrorCode::Invalid,
              "field \"" + std::string(name) + "\" is not an integer: " + it->dump());
}

}  // namespace

Result<nlohmann::json> parse_object(std::string_view body, std::string_view what) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return fail(ErrorCode::Invalid,
                std::string(what) + ": the etcd gateway answered with " +
                    "something that is not a JSON object: " + std::string(body.substr(0, 200)));
  }
  return j;
}

Result<std::int64_t> int_field(const nlohmann::json& obj, std::string_view name) {
  return integer<std::int64_t>(obj, name);
}

Result<std::uint64_t> uint_field(const nlohmann::json& obj, std::string_view name) {
  return integer<std::uint64_t>(obj, name);
}

Result<std::string> bytes_field(const nlohmann::json& obj, std::string_view name) {
  const auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return fail(ErrorCode::Invalid, "field \"" + std::string(name) + "\" is not base64 text");
  }
  auto decoded = base64_decode(it->get_ref<const std::string&>());
  if (!decoded)
    return std::move(decoded).error().with_context("field \"" + std::string(name) + "\"");
  return decoded;
}

bool bool_field(const nlohmann::json& obj, std::string_view name) {
  const auto it = obj.find(name);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

Result<ResponseHeader> header(const nlohmann::json& obj) {
  ResponseHeader h;
  const auto it = obj.find("header");
  if (it == obj.end() || !it->is_object()) return h;
  FED_ASSIGN_OR_RETURN(h.cluster_id, uint_field(*it, "cluster_id"));
  FED_ASSIGN_OR_RETURN(h.member_id, uint_field(*it, "member_id"));
  FED_ASSIGN_OR_RETURN(h.revision, int_field(*it, "revision"));
  FED_ASSIGN_OR_RETURN(h.raft_term, uint_field(*it, "raft_term"));
  return h;
}

Result<KeyValue> key_value(const nlohmann::json& obj) {
  KeyValue kv;
  if (!obj.is_object()) return fail(ErrorCode::Invalid, "a key-value is not a JSON object");
  FED_ASSIGN_OR_RETURN(kv.key, bytes_field(obj, "key"));
  FED_ASSIGN_OR_RETURN(kv.value, bytes_field(obj, "value"));
  FED_ASSIGN_OR_RETURN(kv.create_revision, int_field(obj, "create_revision"));
  FED_ASSIGN_OR_RETURN(kv.mod_revision, int_field(obj, "mod_revision"));
  FED_ASSIGN_OR_RETURN(kv.version, int_field(obj, "version"));
  FED_ASSIGN_OR_RETURN(kv.lease, int_field(obj, "lease"));
  return kv;
}

std::string num(std::int64_t v) {
  return std::to_string(v);
}
std::string unum(std::uint64_t v) {
  return std::to_string(v);
}

}  // namespace fed::etcd::codec::detail
