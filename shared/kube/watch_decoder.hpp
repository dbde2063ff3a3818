#pragma once
// Decoding a watch stream: the body is newline-delimited JSON, one event per line, arriving in
// arbitrary chunks. LineSplitter reassembles lines across chunks; parse_watch_event turns one
// line into a WatchEvent. Pure.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::kube {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

std::string_view to_string(WatchEventType type);

struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  nlohmann::json object;  // the object; a Status for Error; only metadata for Bookmark
};

// Parses {"type": "...", "object": {...}}; Invalid names what is wrong with the line.
Result<WatchEvent> parse_watch_event(std::string_view line);

class LineSplitter final {
 public:
  // A line longer than this is an error (a broken or hostile stream); Kubernetes objects are
  // at most ~1.5 MiB in etcd, so 64 MiB leaves room for any encoding.
  static constexpr std::size_t kMaxLine = 64u << 20;

  // Appends a chunk and calls `on_line` for every complete line, without the '\n' (and '\r'),
  // skipping empty lines. Stops early and returns false when `on_line` returns false or a
  // line exceeds kMaxLine (then overflowed() is true).
  bool feed(std::string_view chunk, const std::function<bool(std::string_view)>& on_line);
  // Bytes of an unfinished line kept for the next chunk.
  std::size_t buffered() const { return buf_.size() - start_; }
  bool overflowed() const { return overflowed_; }

 private:
  std::string buf_;
  std::size_t start_ = 0;  // first unconsumed byte of buf_
  bool overflowed_ = false;
};

}  // namespace fed::kube
