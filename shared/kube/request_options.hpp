#pragma once
// Options of the REST verbs (list, watch, create/update/patch, apply, delete) as plain structs,
// and their translation into query strings and request bodies. Pure.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "shared/kube/resource_ref.hpp"

namespace fed::kube {

struct ListOptions {
  std::string label_selector;  // LabelSelector::to_string() or raw text
  std::string field_selector;  // "metadata.name=x,spec.nodeName=n"
  std::int64_t limit = 0;      // page size; 0 = server default (everything)
  std::string continue_token;  // from the previous page's metadata.continue
  std::string resource_version;
  std::string resource_version_match;  // "NotOlderThan" or "Exact"
  std::chrono::seconds timeout{0};     // server-side timeoutSeconds; 0 = none
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;       // start after this version; empty = "most recent"
  bool allow_watch_bookmarks = true;  // BOOKMARK events keep the resourceVersion fresh
  std::chrono::seconds timeout{0};    // server closes the stream after this; 0 = server default
};

// For create, update and the patch verbs.
struct WriteOptions {
  std::string field_manager;     // recorded in managedFields; empty = server default
  bool dry_run = false;          // dryRun=All: validate and admit, persist nothing
  std::string field_validation;  // "Strict", "Warn" or "Ignore"; empty = server default
};

struct ApplyOptions {
  std::string field_manager;  // required by server-side apply
  bool force = false;         // take over fields owned by other managers
  bool dry_run = false;
};

enum class Propagation { Orphan, Background, Foreground };

struct DeleteOptions {
  std::optional<Propagation> propagation;  // unset = the resource's default
  std::optional<std::int64_t> grace_period_seconds;
  std::string precondition_uid;               // delete only this incarnation
  std::string precondition_resource_version;  // delete only this version
  bool dry_run = false;
};

enum class PatchType {
  Merge,           // RFC 7386 JSON merge patch
  Json,            // RFC 6902 JSON patch (a list of operations)
  StrategicMerge,  // Kubernetes strategic merge patch (built-in types only)
  Apply,           // server-side apply (use DynamicClient::apply for the options)
};

// The Content-Type header of a patch type.
std::string_view content_type_of(PatchType type);

void add_to_query(Query& q, const ListOptions& o);
// Adds watch=true and the watch parameters.
void add_to_query(Query& q, const WatchOptions& o);
void add_to_query(Query& q, const WriteOptions& o);
void add_to_query(Query& q, const ApplyOptions& o);
// Only dryRun goes in the query; the rest is the request body (delete_options_body).
void add_to_query(Query& q, const DeleteOptions& o);

// The meta.k8s.io/v1 DeleteOptions body; null when every option is at its default.
nlohmann::json delete_options_body(const DeleteOptions& o);

}  // namespace fed::kube
