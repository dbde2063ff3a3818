#include "shared/kube/event_recorder.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>

#include "shared/kube/dynamic_client.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::kube {
namespace {

const GroupVersionResource kEvents{"", "v1", "events"};

std::string event_namespace(const InvolvedObject& object) {
  return object.ns.empty() ? "default" : object.ns;
}

std::string_view type_name(EventType type) {
  return type == EventType::Warning ? "Warning" : "Normal";
}

// The Event API caps messages at 1 kB; longer ones are cut, as client-go does.
std::string bounded(std::string_view message) {
  constexpr std::size_t kMax = 1024;
  if (message.size() <= kMax) return std::string(message);
  return std::string(message.substr(0, kMax - 3)) + "...";
}

}  // namespace

nlohmann::json make_event(const InvolvedObject& object, EventType type, std::string_view reason,
                          std::string_view message, const EventSource& source,
                          std::chrono::system_clock::time_point now) {
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx", static_cast<unsigned long long>(nanos));
  const std::string stamp = util::format_rfc3339(now);
  nlohmann::json involved = {
      {"apiVersion", object.api_version}, {"kind", object.kind}, {"name", object.name}};
  if (!object.ns.empty()) involved["namespace"] = object.ns;
  if (!object.uid.empty()) involved["uid"] = object.uid;
  nlohmann::json src = {{"component", source.component}};
  if (!source.host.empty()) src["host"] = source.host;
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", object.name + suffix}, {"namespace", event_namespace(object)}}},
          {"involvedObject", involved},
          {"type", type_name(type)},
          {"reason", reason},
          {"message", bounded(message)},
          {"source", src},
          {"reportingComponent", source.component},
          {"reportingInstance", source.host},
          {"firstTimestamp", stamp},
          {"lastTimestamp", stamp},
          {"count", 1}};
}

EventRecorder::EventRecorder(std::shared_ptr<DynamicClient> client, EventSource source,
                             std::chrono::seconds series_window)
    : client_(std::move(client)), source_(std::move(source)), window_(series_window) {}

void EventRecorder::record(const InvolvedObject& object, EventType type, std::string_view reason,
                           std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::string key = object.kind + "/" + object.ns + "/" + object.name + "\n" +
                          std::string(type_name(type)) + "\n" + std::string(reason) + "\n" +
                          bounded(message);
  std::lock_guard lock(mu_);
  auto it = series_.find(key);
  if (it != series_.end() && now - it->second.last < window_) {
    Series& s = it->second;
    const nlohmann::json patch = {{"count", s.count + 1},
                                  {"lastTimestamp", util::format_rfc3339(now)}};
    auto patched =
        client_->patch(ResourceRef{kEvents, s.ns, s.name, ""}, PatchType::Merge, patch.dump());
    if (patched) {
      s.count += 1;
      s.last = now;
      return;
    }
    // Gone (expired by the API server's TTL) or unreachable: start a new series below.
    spdlog::debug("event {}/{}: count update failed: {}", s.ns, s.name,
                  patched.error().to_error().message());
  }
  const nlohmann::json event = make_event(object, type, reason, message, source_, now);
  const std::string ns = event["metadata"]["namespace"];
  auto created = client_->create(ResourceRef{kEvents, ns, "", ""}, event);
  if (!created) {
    spdlog::warn("could not record event {} {} on {} {}: {}", type_name(type), reason, object.kind,
                 object.name, created.error().to_error().message());
    return;
  }
  series_[key] = Series{ns, event["metadata"]["name"], 1, now};
  // Old series are dropped once outside the window, so the map stays small.
  std::erase_if(series_, [&](const auto& kv) { return now - kv.second.last >= window_; });
}

}  // namespace fed::kube
