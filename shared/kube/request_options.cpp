#include "shared/kube/request_options.hpp"

#include <nlohmann/json.hpp>

namespace fed::kube {

std::string_view content_type_of(PatchType type) {
  switch (type) {
    case PatchType::Merge:
      return "application/merge-patch+json";
    case PatchType::Json:
      return "application/json-patch+json";
    case PatchType::StrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::Apply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

void add_to_query(Query& q, const ListOptions& o) {
  q.add_if("labelSelector", o.label_selector);
  q.add_if("fieldSelector", o.field_selector);
  if (o.limit > 0) q.add("limit", std::to_string(o.limit));
  q.add_if("continue", o.continue_token);
  q.add_if("resourceVersion", o.resource_version);
  q.add_if("resourceVersionMatch", o.resource_version_match);
  if (o.timeout.count() > 0) q.add("timeoutSeconds", std::to_string(o.timeout.count()));
}

void add_to_query(Query& q, const WatchOptions& o) {
  q.add("watch", "true");
  q.add_if("labelSelector", o.label_selector);
  q.add_if("fieldSelector", o.field_selector);
  q.add_if("resourceVersion", o.resource_version);
  if (o.allow_watch_bookmarks) q.add("allowWatchBookmarks", "true");
  if (o.timeout.count() > 0) q.add("timeoutSeconds", std::to_string(o.timeout.count()));
}

void add_to_query(Query& q, const WriteOptions& o) {
  q.add_if("fieldManager", o.field_manager);
  if (o.dry_run) q.add("dryRun", "All");
  q.add_if("fieldValidation", o.field_validation);
}

void add_to_query(Query& q, const ApplyOptions& o) {
  q.add_if("fieldManager", o.field_manager);
  if (o.force) q.add("force", "true");
  if (o.dry_run) q.add("dryRun", "All");
}

void add_to_query(Query& q, const DeleteOptions& o) {
  if (o.dry_run) q.add("dryRun", "All");
}

nlohmann::json delete_options_body(const DeleteOptions& o) {
  nlohmann::json body;
  if (o.propagation) {
    switch (*o.propagation) {
      case Propagation::Orphan:
        body["propagationPolicy"] = "Orphan";
        break;
      case Propagation::Background:
        body["propagationPolicy"] = "Background";
        break;
      case Propagation::Foreground:
        body["propagationPolicy"] = "Foreground";
        break;
    }
  }
  if (o.grace_period_seconds) body["gracePeriodSeconds"] = *o.grace_period_seconds;
  if (!o.precondition_uid.empty()) body["preconditions"]["uid"] = o.precondition_uid;
  if (!o.precondition_resource_version.empty()) {
    body["preconditions"]["resourceVersion"] = o.precondition_resource_version;
  }
  if (body.is_null()) return body;
  body["kind"] = "DeleteOptions";
  body["apiVersion"] = "meta.k8s.io/v1";
  return body;
}

}  // namespace fed::kube
