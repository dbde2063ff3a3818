#include "shared/reconfig/allow_list.hpp"

#include <algorithm>
#include <charconv>
#include <regex>
#include <string>

#include "shared/util/duration.hpp"
#include "shared/util/edit_distance.hpp"
#include "shared/util/quantity.hpp"
#include "shared/util/strings.hpp"

namespace fed::reconfig {
namespace {

constexpr std::string_view kCpuState = "cpu_manager_state";
constexpr std::string_view kMemoryState = "memory_manager_state";

// Kubelet-side gates of Kubernetes 1.33 (pkg/features): the ones a node agent can turn on.
const std::vector<std::string_view> kKubeletGates = {
    "CPUCFSQuotaPeriod",
    "CPUManagerPolicyAlphaOptions",
    "CPUManagerPolicyBetaOptions",
    "CPUManagerPolicyOptions",
    "ContainerCheckpoint",
    "DisableCPUQuotaWithExclusiveCPUs",
    "EventedPLEG",
    "GracefulNodeShutdown",
    "GracefulNodeShutdownBasedOnPodPriority",
    "ImageMaximumGCAge",
    "KubeletCrashLoopBackOffMax",
    "KubeletPSI",
    "KubeletPodResourcesDynamicResources",
    "KubeletPodResourcesGet",
    "KubeletSeparateDiskGC",
    "KubeletTracing",
    "LocalStorageCapacityIsolationFSQuotaMonitoring",
    "MemoryManager",
    "MemoryQoS",
    "NodeSwap",
    "QOSReserved",
    "ReloadKubeletServerCertificateFile",
    "TopologyManagerPolicyAlphaOptions",
    "TopologyManagerPolicyBetaOptions",
    "TopologyManagerPolicyOptions",
};

// Gates only the API server, controller-manager or scheduler read: on a hosted control plane
// (GKE, EKS, AKS) their flags are the vendor's, so no agent on a node can change them.
const std::vector<std::string_view> kControlPlaneGates = {
    "AnyVolumeDataSource",
    "AuthorizeNodeWithSelectors",
    "CoordinatedLeaderElection",
    "CronJobsScheduledAnnotation",
    "DeclarativeValidation",
    "ElasticIndexedJob",
    "HPAScaleToZero",
    "JobManagedBy",
    "JobSuccessPolicy",
    "MaxUnavailableStatefulSet",
    "MultiCIDRServiceAllocator",
    "OrderedNamespaceDeletion",
    "SchedulerAsyncPreemption",
    "SchedulerQueueingHints",
    "ServiceAccountTokenJTI",
    "StatefulSetAutoDeletePVC",
    "StorageVersionMigrator",
    "StrictIPCIDRValidation",
    "VolumeAttributesClass",
};

const std::vector<std::string_view> kResourceKeys = {"cpu", "memory", "ephemeral-storage", "pid"};
const std::vector<std::string_view> kEvictionSignals = {"memory.available",   "nodefs.available",
                                                        "nodefs.inodesFree",  "imagefs.available",
                                                        "imagefs.inodesFree", "pid.available"};

const std::vector<FieldSpec> kFields = {
    {"cpuManagerPolicy",
     FieldType::Enum,
     {"none", "static"},
     0,
     0,
     {kCpuState},
     "static gives Guaranteed pods with whole CPUs exclusive cores; needs a CPU reservation"},
    {"reservedSystemCPUs",
     FieldType::CpuSet,
     {},
     0,
     0,
     {kCpuState},
     "CPUs kept for the system and the kubelet, e.g. 0 or 0-1"},
    {"cpuManagerReconcilePeriod", FieldType::Duration, {}, 0, 0, {}, "e.g. 10s"},
    {"memoryManagerPolicy",
     FieldType::Enum,
     {"None", "Static"},
     0,
     0,
     {kMemoryState},
     "Static needs reservedMemory to match the reservations"},
    {"topologyManagerPolicy",
     FieldType::Enum,
     {"none", "best-effort", "restricted", "single-numa-node"},
     0,
     0,
     {},
     ""},
    {"topologyManagerScope", FieldType::Enum, {"container", "pod"}, 0, 0, {}, ""},
    {"featureGates", FieldType::GateMap, {}, 0, 0, {}, "featureGates.GATE=true|false"},
    {"kubeReserved",
     FieldType::ResourceMap,
     kResourceKeys,
     0,
     0,
     {kCpuState, kMemoryState},
     "kubeReserved.cpu=500m, kubeReserved.memory=256Mi"},
    {"systemReserved",
     FieldType::ResourceMap,
     kResourceKeys,
     0,
     0,
     {kCpuState, kMemoryState},
     "systemReserved.cpu=500m"},
    {"evictionHard",
     FieldType::ResourceMap,
     kEvictionSignals,
     0,
     0,
     {},
     "evictionHard.memory.available=200Mi or 5%"},
    {"maxPods", FieldType::Int, {}, 1, 10000, {}, ""},
    {"podPidsLimit", FieldType::Int, {}, -1, 4194304, {}, "-1: no limit"},
    {"imageGCHighThresholdPercent", FieldType::Int, {}, 0, 100, {}, ""},
    {"imageGCLowThresholdPercent", FieldType::Int, {}, 0, 100, {}, ""},
    {"containerLogMaxSize", FieldType::Quantity, {}, 0, 0, {}, "e.g. 10Mi"},
    {"containerLogMaxFiles", FieldType::Int, {}, 2, 1000, {}, ""},
    {"serializeImagePulls", FieldType::Bool, {}, 0, 0, {}, ""},
    {"cpuCFSQuota", FieldType::Bool, {}, 0, 0, {}, ""},
    {"failSwapOn", FieldType::Bool, {}, 0, 0, {}, ""},
    {"shutdownGracePeriod", FieldType::Duration, {}, 0, 0, {}, "graceful node shutdown, e.g. 30s"},
    {"shutdownGracePeriodCriticalPods", FieldType::Duration, {}, 0, 0, {}, "e.g. 10s"},
};

std::string quoted(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

std::string join_views(const std::vector<std::string_view>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + std::string(item);
  return out;
}

Error invalid(std::string message) {
  return Error(ErrorCode::Invalid, std::move(message));
}

Result<nlohmann::json> gate_value(std::string_view gate, std::string_view text) {
  const auto contains = [gate](const std::vector<std::string_view>& list) {
    return std::find(list.begin(), list.end(), gate) != list.end();
  };
  if (contains(kControlPlaneGates)) {
    return invalid("featureGates." + std::string(gate) +
                   ": a control-plane feature gate; kube-apiserver, controller-manager and "
                   "scheduler flags belong to the vendor on hosted clusters, so it cannot be "
                   "changed vendor-agnostically from a node");
  }
  if (!contains(kKubeletGates)) {
    std::vector<std::string> names(kKubeletGates.begin(), kKubeletGates.end());
    std::string message = "featureGates." + std::string(gate) +
                          ": not a kubelet feature gate kubectl-fed knows (Kubernetes 1.33)";
    if (auto near = util::closest_match(gate, names)) message += "; did you mean " + *near + "?";
    return invalid(message + "; known: " + join_views(kKubeletGates));
  }
  if (text == "true") return nlohmann::json(true);
  if (text == "false") return nlohmann::json(false);
  return invalid("featureGates." + std::string(gate) + "=" + std::string(text) +
                 ": a feature gate is true or false");
}

Result<nlohmann::json> scalar_value(const FieldSpec& spec, std::string_view text) {
  const std::string where = std::string(spec.name) + "=" + std::string(text);
  switch (spec.type) {
    case FieldType::Enum:
      if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
        return invalid(where + ": not one of " + join_views(spec.choices));
      }
      return nlohmann::json(std::string(text));
    case FieldType::CpuSet:
      if (!is_cpu_list(text)) return invalid(where + ": not a CPU list such as 0, 0,2 or 0-3");
      return nlohmann::json(std::string(text));
    case FieldType::Bool:
      if (text == "true") return nlohmann::json(true);
      if (text == "false") return nlohmann::json(false);
      return invalid(where + ": expected true or false");
    case FieldType::Int: {
      long long n = 0;
      const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc() || ptr != text.data() + text.size() || n < spec.min || n > spec.max) {
        return invalid(where + ": expected an integer from " + std::to_string(spec.min) + " to " +
                       std::to_string(spec.max));
      }
      return nlohmann::json(n);
    }
    case FieldType::Duration: {
      auto d = util::parse_duration(text);
      if (!d || d->count() < 0)
        return invalid(where + ": expected a duration such as 10s or 1m30s");
      // Written as Go formats it, so /configz ("1m30s") reads back equal to what was set ("90s").
      return nlohmann::json(util::format_duration(*d));
    }
    case FieldType::Quantity:
      if (!util::parse_quantity(text)) return invalid(where + ": expected a quantity such as 10Mi");
      return nlohmann::json(std::string(text));
    case FieldType::ResourceMap:
    case FieldType::GateMap:
      break;
  }
  return invalid(where + ": " + std::string(spec.name) + " takes " + std::string(spec.note));
}

}  // namespace

const std::vector<FieldSpec>& allowed_fields() {
  return kFields;
}

const std::vector<std::string_view>& kubelet_feature_gates() {
  return kKubeletGates;
}

Result<const FieldSpec*> find_field(std::string_view name) {
  for (const auto& spec : kFields) {
    if (spec.name == name) return &spec;
  }
  std::vector<std::string> names;
  for (const auto& spec : kFields) names.emplace_back(spec.name);
  std::string message =
      "--set " + std::string(name) + ": not a KubeletConfiguration field kubectl-fed may change";
  if (auto near = util::closest_match(name, names)) message += "; did you mean " + *near + "?";
  return invalid(message + "; allowed: " + util::join(names, ", ") +
                 " (docs/RECONFIGURE.md lists them with their types)");
}

Result<nlohmann::json> typed_value(const FieldSpec& spec, std::string_view key,
                                   std::string_view text) {
  const bool is_map = spec.type == FieldType::ResourceMap || spec.type == FieldType::GateMap;
  if (is_map && key.empty()) {
    return invalid(std::string(spec.name) + ": give one entry, as " + std::string(spec.note));
  }
  if (!is_map && !key.empty()) {
    return invalid(std::string(spec.name) + "." + std::string(key) + ": " + std::string(spec.name) +
                   " has no sub-fields; use " + std::string(spec.name) + "=VALUE");
  }
  if (spec.type == FieldType::GateMap) return gate_value(key, text);
  if (spec.type != FieldType::ResourceMap) return scalar_value(spec, text);

  const std::string where = std::string(spec.name) + "." + std::string(key);
  if (std::find(spec.choices.begin(), spec.choices.end(), key) == spec.choices.end()) {
    return invalid(where + ": unknown key " + quoted(key) + "; one of " + join_views(spec.choices));
  }
  // Eviction thresholds may be percentages; reservations are quantities.
  static const std::regex kPercent("([0-9]{1,2}(\\.[0-9]+)?|100)%");
  const std::string value(text);
  if (spec.name == "evictionHard" && std::regex_match(value, kPercent))
    return nlohmann::json(value);
  auto q = util::parse_quantity(text);
  if (!q || q->as_double() < 0) {
    return invalid(where + "=" + value + ": expected a non-negative quantity such as 500m or 1Gi" +
                   (spec.name == "evictionHard" ? std::string(" or a percentage such as 5%") : ""));
  }
  return nlohmann::json(value);
}

bool is_cpu_list(std::string_view text) {
  static const std::regex kCpuList("[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*");
  const std::string s(text);
  if (!std::regex_match(s, kCpuList)) return false;
  for (const auto& part : util::split(s, ',')) {
    const auto dash = part.find('-');
    if (dash == std::string::npos) continue;
    unsigned long long lo = 0, hi = 0;
    const char* begin = part.data();
    if (std::from_chars(begin, begin + dash, lo).ec != std::errc() ||
        std::from_chars(begin + dash + 1, begin + part.size(), hi).ec != std::errc() || lo > hi) {
      return false;  // "3-1": the kernel and the kubelet reject descending ranges
    }
  }
  return true;
}

}  // namespace fed::reconfig
