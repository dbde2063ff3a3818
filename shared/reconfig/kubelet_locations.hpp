#pragma once
// Where each Kubernetes distribution keeps the kubelet's configuration, its state directory and
// how it is restarted: the table the node agent ships, plus reading the running kubelet's own
// command line (--config, --config-dir, --root-dir), which beats any table when it is there.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::reconfig {

struct KubeletLayout {
  std::string_view distribution;  // "kubeadm", "k3s", "eks", "eks-al2023", "aks", "gke"
  std::string_view config_file;   // the KubeletConfiguration passed with --config; may be empty
  // A drop-in directory (--config-dir, Kubernetes >= 1.30): kubectl-fed then writes its own
  // file there instead of rewriting the vendor's. Empty when the distribution has none.
  std::string_view config_dir;
  std::string_view root_dir;  // --root-dir: where cpu_manager_state lives
  std::string_view service;   // the systemd unit that runs the kubelet
  std::string_view source;    // where the entry comes from, for docs
};

// The shipped table, in detection order.
const std::vector<KubeletLayout>& known_layouts();

// The entry named `distribution`; Invalid lists the known names.
Result<const KubeletLayout*> find_layout(std::string_view distribution);

// The first entry whose config file (or drop-in directory) `exists` says is present. NotFound
// when none is: the message says to pass --kubelet-config.
Result<const KubeletLayout*> detect_layout(const std::function<bool(std::string_view)>& exists);

// The file names a drop-in directory is read in (lexical order; later files win): ours sorts
// last so that its values are the ones the kubelet uses.
inline constexpr std::string_view kDropInFile = "99-kubectl-fed.conf";

// What a kubelet command line (/proc/PID/cmdline: NUL-separated) says about its files.
struct KubeletFlags {
  std::optional<std::string> config;      // --config
  std::optional<std::string> config_dir;  // --config-dir
  std::optional<std::string> root_dir;    // --root-dir
};
KubeletFlags parse_kubelet_cmdline(std::string_view cmdline);

// The systemd unit (e.g. "kubelet.service") a process runs in, from its /proc/PID/cgroup (v1
// "name=systemd" line or v2 "0::" line); nullopt when it runs in none (a scope, a container's
// cgroup, a shell's).
std::optional<std::string> systemd_unit_of(std::string_view proc_cgroup);

}  // namespace fed::reconfig
