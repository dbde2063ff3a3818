#include "shared/fedapi/state_commit.hpp"

#include <charconv>

namespace fed::fedapi {
namespace {

std::optional<std::uint64_t> revision(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::string state_kind(const kube::GroupVersionResource& gvr) {
  return gvr.group.empty() ? gvr.resource : gvr.resource + "." + gvr.group;
}

std::string committed_key(std::string_view kind, std::string_view ns, std::string_view name) {
  std::string key(kind);
  key += '_';
  key += ns;
  key += '_';
  key += name;
  return key;
}

bool commit_covers(std::string_view recorded, const std::optional<std::string>& resource_version) {
  if (!resource_version) return recorded == kCommittedDeleted;
  const auto have = revision(recorded);
  const auto want = revision(*resource_version);
  return have && want && *have >= *want;
}

}  // namespace fed::fedapi
