#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {
namespace {

// The value at `key`, or nullptr when absent or null. Throws when `j` is not an object.
const nlohmann::json* find(const nlohmann::json& j, std::string_view key) {
  if (!j.is_object()) throw FieldError(std::string(key) + ": the enclosing value is not an object");
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void wrong_type(std::string_view key, std::string_view want, const nlohmann::json& v) {
  throw FieldError(std::string(key) + ": must be " + std::string(want) + ", not " +
                   std::string(v.type_name()));
}

}  // namespace

std::string read_string(const nlohmann::json& j, std::string_view key, Presence presence) {
  const auto* v = find(j, key);
  if (v == nullptr || (v->is_string() && v->get_ref<const std::string&>().empty())) {
    if (presence == Presence::Required) throw FieldError(std::string(key) + ": is required");
    return {};
  }
  if (!v->is_string()) wrong_type(key, "a string", *v);
  return v->get<std::string>();
}

std::int64_t read_int(const nlohmann::json& j, std::string_view key) {
  const auto* v = find(j, key);
  if (v == nullptr) return 0;
  if (!v->is_number_integer()) wrong_type(key, "an integer", *v);
  return v->get<std::int64_t>();
}

std::vector<std::string> read_string_list(const nlohmann::json& j, std::string_view key) {
  const auto* v = find(j, key);
  if (v == nullptr) return {};
  if (!v->is_array()) wrong_type(key, "a list of strings", *v);
  std::vector<std::string> out;
  out.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    const auto& item = (*v)[i];
    if (!item.is_string()) {
      wrong_type(std::string(key) + "[" + std::to_string(i) + "]", "a string", item);
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> read_string_map(const nlohmann::json& j, std::string_view key) {
  const auto* v = find(j, key);
  if (v == nullptr) return {};
  if (!v->is_object()) wrong_type(key, "a map of strings", *v);
  std::map<std::string, std::string> out;
  for (const auto& [k, item] : v->items()) {
    if (!item.is_string()) wrong_type(std::string(key) + "." + k, "a string", item);
    out.emplace(k, item.get<std::string>());
  }
  return out;
}

nlohmann::json read_object(const nlohmann::json& j, std::string_view key) {
  const auto* v = find(j, key);
  if (v == nullptr) return nlohmann::json::object();
  if (!v->is_object()) wrong_type(key, "an object", *v);
  return *v;
}

void write_string(nlohmann::json& j, std::string_view key, const std::string& value) {
  if (!value.empty()) j[std::string(key)] = value;
}

void write_int(nlohmann::json& j, std::string_view key, std::int64_t value) {
  if (value != 0) j[std::string(key)] = value;
}

}  // namespace fed::fedapi
