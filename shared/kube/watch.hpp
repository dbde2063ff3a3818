#pragma once
// Watching a collection: one streamed watch request (watch_once), and the "list then watch"
// loop (list_and_watch) that informers run — it relists on 410 Gone / "too old resource
// version" and reconnects with jittered backoff when the connection drops, resuming from the
// last resourceVersion seen (bookmarks keep it fresh).

#include <chrono>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/kube/api_result.hpp"
#include "shared/kube/request_options.hpp"
#include "shared/kube/resource_ref.hpp"
#include "shared/kube/retry_policy.hpp"
#include "shared/kube/watch_decoder.hpp"

namespace fed::kube {

class RestClient;
class DynamicClient;

enum class WatchAction { Continue, Stop };

// Receives each ADDED/MODIFIED/DELETED/BOOKMARK event in order.
using WatchHandler = std::function<WatchAction(WatchEvent&& event)>;

// Streams one watch of `collection` (name empty). Returns success when the server ends the
// stream (timeoutSeconds) or the handler returns Stop; an ApiError for an ERROR event (its
// Status, e.g. 410 Expired: is_gone()), a non-2xx answer or a broken connection; and
// TransportFailure::Cancelled when `stop` is requested.
ApiResult<void> watch_once(RestClient& client, const ResourceRef& collection,
                           const WatchOptions& options, const WatchHandler& handler,
                           std::stop_token stop);

struct ListWatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::int64_t page_size = 500;
  // Each watch request asks the server to end it after a random time in [min, 2*min), so
  // many clients do not reconnect in lockstep; the client gives up 30 s after that.
  std::chrono::seconds min_watch_timeout{300};
  BackoffPolicy backoff{std::chrono::milliseconds(800), std::chrono::milliseconds(30'000), 2.0};
  // Non-empty: start by watching from this resourceVersion (one remembered from earlier)
  // instead of listing; if it is too old (410) the loop relists as usual.
  std::string resume_resource_version;
};

struct ListWatchHandlers {
  // A full list: the complete current set of objects and the list's resourceVersion. Called
  // first and after every relist; the receiver replaces its state.
  std::function<void(std::vector<nlohmann::json>&& items, const std::string& resource_version)>
      on_list;
  // One ADDED/MODIFIED/DELETED event after the list.
  std::function<void(WatchEvent&& event)> on_event;
  // Optional: a list or watch failure (already being retried), for logs and health.
  std::function<void(const ApiError& error)> on_error;
};

// Lists then watches until `stop` is requested: relists on 410 and after errors that a
// resumed watch cannot fix; re-watches from the last resourceVersion after connection loss.
void list_and_watch(DynamicClient& client, const ResourceRef& collection,
                    const ListWatchOptions& options, const ListWatchHandlers& handlers,
                    std::stop_token stop);

}  // namespace fed::kube
