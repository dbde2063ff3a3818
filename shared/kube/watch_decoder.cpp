#include "shared/kube/watch_decoder.hpp"

namespace fed::kube {

std::string_view to_string(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added:
      return "ADDED";
    case WatchEventType::Modified:
      return "MODIFIED";
    case WatchEventType::Deleted:
      return "DELETED";
    case WatchEventType::Bookmark:
      return "BOOKMARK";
    case WatchEventType::Error:
      return "ERROR";
  }
  return "UNKNOWN";
}

Result<WatchEvent> parse_watch_event(std::string_view line) {
  auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return fail(ErrorCode::Invalid,
                "watch stream: an event is not a JSON object: " + std::string(line.substr(0, 120)));
  }
  auto type = j.find("type");
  auto object = j.find("object");
  if (type == j.end() || !type->is_string() || object == j.end()) {
    return fail(ErrorCode::Invalid, "watch stream: an event lacks \"type\" or \"object\"");
  }
  WatchEvent ev;
  const auto& t = type->get_ref<const std::string&>();
  if (t == "ADDED") {
    ev.type = WatchEventType::Added;
  } else if (t == "MODIFIED") {
    ev.type = WatchEventType::Modified;
  } else if (t == "DELETED") {
    ev.type = WatchEventType::Deleted;
  } else if (t == "BOOKMARK") {
    ev.type = WatchEventType::Bookmark;
  } else if (t == "ERROR") {
    ev.type = WatchEventType::Error;
  } else {
    return fail(ErrorCode::Invalid, "watch stream: unknown event type \"" + t + "\"");
  }
  ev.object = std::move(*object);
  return ev;
}

bool LineSplitter::feed(std::string_view chunk,
                        const std::function<bool(std::string_view)>& on_line) {
  buf_.append(chunk.data(), chunk.size());
  while (true) {
    const auto nl = buf_.find('\n', start_);
    if (nl == std::string::npos) break;
    std::string_view line(buf_.data() + start_, nl - start_);
    start_ = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!on_line(line)) {
      buf_.erase(0, start_);
      start_ = 0;
      return false;
    }
  }
  // Drop consumed bytes once per chunk, keeping the partial line.
  buf_.erase(0, start_);
  start_ = 0;
  if (buf_.size() > kMaxLine) {
    overflowed_ = true;
    return false;
  }
  return true;
}

}  // namespace fed::kube
