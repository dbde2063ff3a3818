#pragma once
// The KubeletConfiguration fields kubectl-fed may change, with their types: a `--set
// field=value` outside this list, of the wrong type, or naming an unknown feature gate is
// rejected before anything on the node is touched. The list is docs/RECONFIGURE.md's table.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::reconfig {

// How a value given on the command line is checked and typed in the config file.
enum class FieldType {
  Enum,         // one of FieldSpec::choices, a string
  CpuSet,       // a Linux CPU list: "0", "0,2", "0-3,6", a string
  Bool,         // true or false
  Int,          // an integer in [min, max]
  Duration,     // a Go duration ("10s", "1m30s"), a string
  Quantity,     // a resource quantity ("500m", "1Gi"), a string
  ResourceMap,  // field.KEY=quantity with KEY in FieldSpec::choices (cpu, memory, ...)
  GateMap,      // featureGates.GATE=true|false with GATE a kubelet feature gate
};

struct FieldSpec {
  std::string_view name;  // the KubeletConfiguration JSON name: "cpuManagerPolicy"
  FieldType type;
  std::vector<std::string_view> choices;  // Enum values, or ResourceMap keys
  long long min = 0, max = 0;             // Int bounds
  // Kubelet checkpoint files (under its root dir) that contradict a changed value and make
  // the kubelet refuse to start unless removed: the CPU and memory managers' state.
  std::vector<std::string_view> state_files;
  std::string_view note;  // one line for docs and --help
};

// The whole allow-list, in documentation order.
const std::vector<FieldSpec>& allowed_fields();

// The spec of `name`, or an Invalid error that lists the allowed fields.
Result<const FieldSpec*> find_field(std::string_view name);

// The kubelet's feature gates kubectl-fed accepts (Kubernetes 1.33), sorted.
const std::vector<std::string_view>& kubelet_feature_gates();

// Checks `text` against `spec` (for map types, `key` is the part after the first dot) and
// returns the typed JSON value the config file gets. Invalid errors name the field, the value
// and what is accepted; a control-plane feature gate is refused with the reason.
Result<nlohmann::json> typed_value(const FieldSpec& spec, std::string_view key,
                                   std::string_view text);

// Whether `text` is a CPU list the kernel and the kubelet read ("0-3,6"); pure syntax.
bool is_cpu_list(std::string_view text);

}  // namespace fed::reconfig
