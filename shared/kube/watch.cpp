#include "shared/kube/watch.hpp"

#include <spdlog/spdlog.h>

#include <optional>
#include <random>
#include <utility>

#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/interruptible_sleep.hpp"
#include "shared/kube/rest_client.hpp"

namespace fed::kube {
namespace {

std::string resource_version_of(const nlohmann::json& obj) {
  if (!obj.is_object()) return {};
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return {};
  auto rv = md->find("resourceVersion");
  return rv != md->end() && rv->is_string() ? rv->get<std::string>() : std::string();
}

bool is_cancelled(const ApiError& e) {
  return e.transport_failure() == TransportFailure::Cancelled;
}

// Errors that re-watching from the same resourceVersion may cure: the network and an
// overloaded server. Anything else (410, 403, 404, garbage) goes back to a fresh list.
bool resumable(const ApiError& e) {
  if (e.is_gone()) return false;
  return e.http_status() == 0 || e.http_status() == 429 || e.http_status() >= 500;
}

}  // namespace

ApiResult<void> watch_once(RestClient& client, const ResourceRef& collection,
                           const WatchOptions& options, const WatchHandler& handler,
                           std::stop_token stop) {
  ApiRequest req;
  req.path = path_of(collection.collection());
  Query q;
  add_to_query(q, options);
  req.query = q.str();
  req.stop = stop;
  // A dead peer that never closes the stream must not hang us forever: give up a little
  // after the server should have ended it.
  req.timeout = options.timeout.count() > 0
                    ? std::chrono::milliseconds(options.timeout + std::chrono::seconds(30))
                    : std::chrono::milliseconds(0);

  LineSplitter splitter;
  std::optional<ApiError> event_error;
  bool stopped_by_handler = false;
  auto on_line = [&](std::string_view line) {
    auto ev = parse_watch_event(line);
    if (!ev) {
      event_error = ApiError::from_error(ev.error());
      return false;
    }
    if (ev->type == WatchEventType::Error) {
      event_error = ApiError::from_status(ev->object, 500);
      event_error->add_context("watch " + collection.to_string());
      return false;
    }
    if (handler(std::move(*ev)) == WatchAction::Stop) {
      stopped_by_handler = true;
      return false;
    }
    return true;
  };
  auto result = client.stream(req, [&](std::string_view chunk) {
    if (!splitter.feed(chunk, on_line)) {
      if (splitter.overflowed()) {
        event_error = ApiError::from_error(
            Error(ErrorCode::Internal,
                  "watch " + collection.to_string() + ": an event exceeds the 64 MiB line limit"));
      }
      return false;
    }
    return true;
  });
  if (event_error) return std::move(*event_error);
  if (stopped_by_handler) return {};
  return result;
}

void list_and_watch(DynamicClient& client, const ResourceRef& collection,
                    const ListWatchOptions& options, const ListWatchHandlers& handlers,
                    std::stop_token stop) {
  Backoff backoff(options.backoff);
  std::mt19937_64 rng(std::random_device{}());
  std::string resource_version = options.resume_resource_version;
  bool need_list = resource_version.empty();
  auto report = [&](const ApiError& e) {
    spdlog::warn("list/watch {}: {}", collection.to_string(), e.to_error().message());
    if (handlers.on_error) handlers.on_error(e);
  };

  while (!stop.stop_requested()) {
    if (need_list) {
      ListOptions lo;
      lo.label_selector = options.label_selector;
      lo.field_selector = options.field_selector;
      lo.limit = options.page_size;
      auto list = client.list_all(collection, lo, stop);
      if (!list) {
        if (is_cancelled(list.error())) return;
        report(list.error());
        if (!sleep_unless_stopped(backoff.next(), stop)) return;
        continue;
      }
      resource_version = resource_version_of(*list);
      std::vector<nlohmann::json> items;
      if (auto it = list->find("items"); it != list->end() && it->is_array()) {
        items.reserve(it->size());
        for (auto& item : *it) items.push_back(std::move(item));
      }
      handlers.on_list(std::move(items), resource_version);
      need_list = false;
    }

    WatchOptions wo;
    wo.label_selector = options.label_selector;
    wo.field_selector = options.field_selector;
    wo.resource_version = resource_version;
    wo.allow_watch_bookmarks = true;
    const auto base = std::max<long>(options.min_watch_timeout.count(), 1);
    wo.timeout = std::chrono::seconds(std::uniform_int_distribution<long>(base, 2 * base - 1)(rng));

    size_t events = 0;
    const auto started = std::chrono::steady_clock::now();
    auto result = watch_once(
        client.rest(), collection, wo,
        [&](WatchEvent&& ev) {
          ++events;
          const std::string rv = resource_version_of(ev.object);
          if (!rv.empty()) resource_version = rv;
          if (ev.type != WatchEventType::Bookmark) handlers.on_event(std::move(ev));
          return WatchAction::Continue;
        },
        stop);
    if (events > 0) backoff.reset();
    if (result) {
      // The server ended the stream; resume at once unless it keeps closing empty streams.
      if (events == 0 && std::chrono::steady_clock::now() - started < std::chrono::seconds(1)) {
        if (!sleep_unless_stopped(backoff.next(), stop)) return;
      }
      continue;
    }
    const ApiError& err = result.error();
    if (is_cancelled(err)) return;
    if (err.is_gone()) {
      spdlog::debug("watch {}: {}; relisting", collection.to_string(), err.message());
      need_list = true;
      continue;
    }
    report(err);
    if (!resumable(err)) need_list = true;
    if (!sleep_unless_stopped(backoff.next(), stop)) return;
  }
}

}  // namespace fed::kube
