#pragma once
// Reading and writing the fields of API objects as nlohmann::json. The from_json functions of
// this folder use these readers and throw FieldError naming the field; decode() is the
// boundary that turns any of it into an Invalid error, so no exception leaves the module.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::fedapi {

// A field is missing or has the wrong type; what() is "<field path>: <problem>".
class FieldError final : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Presence { Required, Optional };

// The string at `key` of object `j`; "" when optional and absent or null.
std::string read_string(const nlohmann::json& j, std::string_view key,
                        Presence presence = Presence::Optional);
// The integer at `key`; 0 when absent or null.
std::int64_t read_int(const nlohmann::json& j, std::string_view key);
// The list of strings at `key`; empty when absent or null.
std::vector<std::string> read_string_list(const nlohmann::json& j, std::string_view key);
// The string-to-string map at `key`; empty when absent or null.
std::map<std::string, std::string> read_string_map(const nlohmann::json& j, std::string_view key);
// The object at `key`, or an empty object when absent or null.
nlohmann::json read_object(const nlohmann::json& j, std::string_view key);

// Sets `key` to `value` unless `value` is empty, so unset fields stay absent.
void write_string(nlohmann::json& j, std::string_view key, const std::string& value);
// Sets `key` to `value` unless it is zero.
void write_int(nlohmann::json& j, std::string_view key, std::int64_t value);

// Runs `read` and prefixes any FieldError it throws with `path` ("clusterSubnets.c2").
template <typename F>
auto within(std::string_view path, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const FieldError& e) {
    throw FieldError(std::string(path) + "." + e.what());
  }
}

// j.get<T>() with every exception turned into an Invalid error prefixed with `what`
// ("Peering c2 spec").
template <typename T>
Result<T> decode(const nlohmann::json& j, std::string_view what) {
  try {
    if (!j.is_object()) throw FieldError("must be an object, not " + std::string(j.type_name()));
    return j.get<T>();
  } catch (const std::exception& e) {
    return fail(ErrorCode::Invalid, std::string(what) + ": " + e.what());
  }
}

}  // namespace fed::fedapi
