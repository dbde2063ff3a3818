#include "plugin/reconfigure/reconfigure_features.hpp"

#include <algorithm>
#include <optional>
#include <thread>

#include "plugin/manifests/apply.hpp"
#include "plugin/manifests/render.hpp"
#include "plugin/reconfigure/reconfigure_manifests.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Where each feature's pieces are (manifests/features/podpreset/).
struct FeatureObjects {
  std::string_view manifests;          // the directory under manifests/features/
  std::string_view api_group_version;  // served by its CRD
  std::string_view resource;
  std::string_view deployment;  // in kubectl-fed-system
  kube::GroupVersionResource webhook_configuration_kind;
  std::string_view webhook_configuration;
  std::string_view tls_secret;  // the webhook's own Secret, made by its workload
};

const FeatureObjects* objects_of(std::string_view name) {
  static const FeatureObjects kPodPreset{
      "podpreset",
      "settings.kubectl-fed.io/v1alpha1",
      "podpresets",
      "fed-podpreset",
      {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"},
      "kubectl-fed-podpreset",
      "fed-podpreset-webhook-tls"};
  return name == kPodPresetFeature ? &kPodPreset : nullptr;
}

// Why `deployment` is not available yet, "" when it is.
std::string deployment_not_ready(const json& deployment) {
  const json status = deployment.value("status", json::object());
  const auto generation = deployment["metadata"].value("generation", 0);
  if (status.value("observedGeneration", 0) < generation) return "its Deployment is being updated";
  const int wanted = deployment.value("spec", json::object()).value("replicas", 1);
  if (status.value("updatedReplicas", 0) < wanted ||
      status.value("availableReplicas", 0) < wanted) {
    return "its Deployment has " + std::to_string(status.value("availableReplicas", 0)) + " of " +
           std::to_string(wanted) + " replica(s) available";
  }
  return "";
}

// How many objects of the feature's API exist, nullopt when the API is not served.
Result<std::optional<std::size_t>> count_objects(kube::DynamicClient& c, const FeatureObjects& f) {
  auto list = c.get_raw("/apis/" + std::string(f.api_group_version) + "/" +
                        std::string(f.resource) + "?limit=500");
  if (!list) {
    if (list.error().is_not_found()) return std::optional<std::size_t>{};
    return list.error().to_error();
  }
  const json doc = json::parse(*list, nullptr, false);
  return std::optional<std::size_t>{doc.is_object() ? doc.value("items", json::array()).size() : 0};
}

// Makes a feature's result, timed from its construction.
class FinishFeature {
 public:
  explicit FinishFeature(std::string_view name) : name_(name), start_(Clock::now()) {}
  FeatureResult operator()(NodeOutcome outcome, std::string message) const {
    return FeatureResult{name_, outcome, std::move(message),
                         std::chrono::duration<double>(Clock::now() - start_).count()};
  }
  Clock::time_point start() const { return start_; }

 private:
  std::string name_;
  Clock::time_point start_;
};

bool has_ca_bundle(const json& configuration) {
  const json webhooks = configuration.value("webhooks", json::array());
  if (webhooks.empty()) return false;
  for (const auto& w : webhooks) {
    if (w.value("clientConfig", json::object()).value("caBundle", "").empty()) return false;
  }
  return true;
}

}  // namespace

Result<std::vector<json>> feature_objects(std::string_view name, const std::string& image,
                                          bool webhook_caller_auth) {
  const FeatureObjects* f = objects_of(name);
  if (f == nullptr) return fail(ErrorCode::Invalid, "unknown feature " + std::string(name));
  RenderOptions options;
  options.image = image;
  options.webhook_caller_auth = webhook_caller_auth;
  options.namespace_name = std::string(kReconfigureNamespace);
  return render_feature(f->manifests, options);
}

FeatureState observe_feature(kube::DynamicClient& c, std::string_view name) {
  FeatureState state{std::string(name), false, false, ""};
  const FeatureObjects* f = objects_of(name);
  if (f == nullptr) {
    state.message = "unknown feature";
    return state;
  }
  // The paper's monitor: the API is in discovery.
  auto discovered = c.get_raw("/apis/" + std::string(f->api_group_version));
  if (discovered) {
    const json doc = json::parse(*discovered, nullptr, false);
    for (const auto& r : doc.is_object() ? doc.value("resources", json::array()) : json::array()) {
      if (r.value("name", "") == f->resource) state.installed = true;
    }
  }
  if (!state.installed) {
    state.message =
        std::string(f->resource) + "." + std::string(f->api_group_version) + " is not served";
    return state;
  }
  auto deployment = c.get(kube::ResourceRef{{"apps", "v1", "deployments"},
                                            std::string(kReconfigureNamespace),
                                            std::string(f->deployment),
                                            ""});
  if (!deployment) {
    state.message = "Deployment " + std::string(kReconfigureNamespace) + "/" +
                    std::string(f->deployment) + ": " + deployment.error().to_error().message();
    return state;
  }
  if (state.message = deployment_not_ready(*deployment); !state.message.empty()) return state;
  auto configuration = c.get(kube::ResourceRef{f->webhook_configuration_kind, "",
                                               std::string(f->webhook_configuration), ""});
  if (!configuration || !has_ca_bundle(*configuration)) {
    state.message = "webhook configuration " + std::string(f->webhook_configuration) +
                    (configuration ? " has no CA bundle yet" : " is missing");
    return state;
  }
  state.ready = true;
  return state;
}

FeatureResult install_feature(kube::DynamicClient& c, std::string_view name,
                              const std::string& image, bool webhook_caller_auth,
                              std::chrono::seconds timeout, const ProgressFn& progress) {
  const FinishFeature finish(name);
  auto objects = feature_objects(name, image, webhook_caller_auth);
  if (!objects) return finish(NodeOutcome::Failed, objects.error().message());
  if (auto ns = ensure_reconfigure_namespace(c); !ns) {
    return finish(NodeOutcome::Failed, ns.error().message());
  }
  auto applied = apply_objects(c, *objects, "feature " + std::string(name));
  if (!applied) return finish(NodeOutcome::Failed, applied.error().message());
  const bool changed = any_change(*applied);
  progress("feature " + std::string(name) + ": " +
           (changed ? "installed, waiting until Ready" : "already installed, checking"));
  const auto deadline = finish.start() + timeout;
  FeatureState state = observe_feature(c, name);
  while (!state.ready && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    state = observe_feature(c, name);
  }
  if (!state.ready) {
    const FeatureObjects* f = objects_of(name);
    return finish(NodeOutcome::Failed, "not Ready within " + std::to_string(timeout.count()) +
                                           "s: " + state.message + " (kubectl -n " +
                                           std::string(kReconfigureNamespace) + " logs deploy/" +
                                           std::string(f->deployment) + ")");
  }
  return finish(changed ? NodeOutcome::Applied : NodeOutcome::AlreadyApplied, "");
}

}  // namespace fed::plugin

namespace fed::plugin {

FeatureResult remove_feature(kube::DynamicClient& c, std::string_view name,
                             std::chrono::seconds timeout, const ProgressFn& progress) {
  const FinishFeature finish(name);
  const FeatureObjects* f = objects_of(name);
  auto objects = feature_objects(name, "unused");
  if (f == nullptr || !objects) return finish(NodeOutcome::Failed, "unknown feature");
  // Nothing is lost: a CRD takes its objects with it.
  auto existing = count_objects(c, *f);
  if (!existing) return finish(NodeOutcome::Failed, existing.error().message());
  if (existing->value_or(0) > 0) {
    return finish(NodeOutcome::Failed,
                  std::to_string(**existing) + " " + std::string(f->resource) +
                      " exist and would be deleted with the API: delete them first (kubectl "
                      "get " +
                      std::string(f->resource) + " -A), then run this again");
  }
  const auto rest = std::stable_partition(objects->begin(), objects->end(), [](const json& o) {
    return o.value("kind", "").find("WebhookConfiguration") != std::string::npos;
  });
  std::reverse(rest, objects->end());
  objects->push_back({{"apiVersion", "v1"},
                      {"kind", "Secret"},
                      {"metadata",
                       {{"name", std::string(f->tls_secret)},
                        {"namespace", std::string(kReconfigureNamespace)}}}});
  int deleted = 0;
  for (const auto& o : *objects) {
    auto r = c.remove_object(o);
    if (r) {
      ++deleted;
    } else if (!r.error().is_not_found()) {
      return finish(NodeOutcome::Failed, "deleting " + o.value("kind", "") + " " +
                                             o["metadata"].value("name", "") + ": " +
                                             r.error().to_error().message());
    }
  }
  if (deleted == 0 && !existing->has_value()) {
    return finish(NodeOutcome::AlreadyApplied, "not installed");
  }
  progress("feature " + std::string(name) + ": deleted " + std::to_string(deleted) +
           " object(s), waiting until its API is gone");
  const auto deadline = finish.start() + timeout;
  while (observe_feature(c, name).installed) {
    if (Clock::now() >= deadline) {
      return finish(
          NodeOutcome::Failed,
          "its API is still served after " + std::to_string(timeout.count()) +
              "s (kubectl get crd " + std::string(f->resource) + "." +
              std::string(f->api_group_version.substr(0, f->api_group_version.find('/'))) + ")");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  return finish(NodeOutcome::Removed, "");
}

}  // namespace fed::plugin
