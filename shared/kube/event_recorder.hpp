#pragma once
// EventRecorder: Kubernetes Events (core/v1) about an object, as `kubectl describe` and
// `kubectl get events` show them. A repeat of the same type, reason and message about the same
// object within the series window bumps the existing Event's count and lastTimestamp instead of
// creating another (client-go's EventCorrelator does the same), so a reconcile loop that fails
// every few seconds leaves one Event, not hundreds. Best-effort: a failure to record is logged,
// never returned — an Event must not fail the work it reports.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fed::kube {

class DynamicClient;

// The object an Event is about. Cluster-scoped objects (Nodes) get their Events in "default",
// as the kubelet's are.
struct InvolvedObject {
  std::string api_version;  // "v1"
  std::string kind;         // "Node"
  std::string ns;           // empty for cluster-scoped objects
  std::string name;
  std::string uid;  // optional; kubectl describe matches on it when set
};

enum class EventType { Normal, Warning };

struct EventSource {
  std::string component;  // "fed-agent-node"
  std::string host;       // the node the reporter runs on; may be empty
};

// The Event object for a first occurrence at `now` (pure; the name is `object.name` plus a
// time-derived suffix, as the kubelet names its Events).
nlohmann::json make_event(const InvolvedObject& object, EventType type, std::string_view reason,
                          std::string_view message, const EventSource& source,
                          std::chrono::system_clock::time_point now);

class EventRecorder final {
 public:
  EventRecorder(std::shared_ptr<DynamicClient> client, EventSource source,
                std::chrono::seconds series_window = std::chrono::minutes(10));

  // Records one occurrence. Thread-safe.
  void record(const InvolvedObject& object, EventType type, std::string_view reason,
              std::string_view message);

 private:
  struct Series {
    std::string ns, name;  // of the Event object
    int count = 0;
    std::chrono::system_clock::time_point last;
  };

  std::shared_ptr<DynamicClient> client_;
  EventSource source_;
  std::chrono::seconds window_;
  std::mutex mu_;
  std::map<std::string, Series> series_;  // by object, type, reason and message
};

}  // namespace fed::kube
