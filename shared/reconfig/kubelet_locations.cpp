#include "shared/reconfig/kubelet_locations.hpp"

#include "shared/util/strings.hpp"

namespace fed::reconfig {
namespace {

// Paths from the vendors' public documentation (docs/RECONFIGURE.md); only kubeadm's layout
// (through the testbed, which uses explicit paths) is exercised by the tests here.
const std::vector<KubeletLayout> kLayouts = {
    {"kubeadm", "/var/lib/kubelet/config.yaml", "/etc/kubernetes/kubelet.conf.d",
     "/var/lib/kubelet", "kubelet", "kubeadm: kubelet-config ConfigMap written to the node"},
    {"k3s", "", "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d", "/var/lib/kubelet", "k3s",
     "k3s runs the kubelet inside the k3s (server) or k3s-agent process; config drop-ins"},
    {"eks-al2023", "/etc/kubernetes/kubelet/config.json", "/etc/kubernetes/kubelet/config.json.d",
     "/var/lib/kubelet", "kubelet", "EKS Amazon Linux 2023 (nodeadm)"},
    {"eks", "/etc/kubernetes/kubelet/kubelet-config.json", "", "/var/lib/kubelet", "kubelet",
     "EKS Amazon Linux 2 AMI"},
    {"aks", "/etc/default/kubeletconfig.json", "", "/var/lib/kubelet", "kubelet",
     "AKS node image (custom kubelet configuration)"},
    {"gke", "/home/kubernetes/kubelet-config.yaml", "", "/var/lib/kubelet", "kubelet",
     "GKE Container-Optimized OS"},
};

}  // namespace

const std::vector<KubeletLayout>& known_layouts() {
  return kLayouts;
}

Result<const KubeletLayout*> find_layout(std::string_view distribution) {
  std::vector<std::string> names;
  for (const auto& layout : kLayouts) {
    if (layout.distribution == distribution) return &layout;
    names.emplace_back(layout.distribution);
  }
  return Error(ErrorCode::Invalid, "--distribution " + std::string(distribution) +
                                       ": unknown; one of " + util::join(names, ", ") +
                                       ", or give --kubelet-config PATH");
}

Result<const KubeletLayout*> detect_layout(const std::function<bool(std::string_view)>& exists) {
  for (const auto& layout : kLayouts) {
    if (!layout.config_file.empty() && exists(layout.config_file)) return &layout;
    if (layout.config_file.empty() && !layout.config_dir.empty() && exists(layout.config_dir)) {
      return &layout;
    }
  }
  return Error(ErrorCode::NotFound,
               "no kubelet configuration found at any known location (kubeadm, k3s, EKS, AKS, "
               "GKE); give --kubelet-config PATH or --kubelet-config-dir DIR");
}

KubeletFlags parse_kubelet_cmdline(std::string_view cmdline) {
  KubeletFlags flags;
  const std::vector<std::string> args = util::split(cmdline, '\0', util::EmptyParts::Skip);
  const auto take = [&](std::size_t& i, std::string_view name) -> std::optional<std::string> {
    const std::string& arg = args[i];
    for (const std::string& prefix : {"--" + std::string(name), "-" + std::string(name)}) {
      if (arg == prefix && i + 1 < args.size()) return args[++i];
      if (arg.rfind(prefix + "=", 0) == 0) return arg.substr(prefix.size() + 1);
    }
    return std::nullopt;
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (auto v = take(i, "config"))
      flags.config = *v;
    else if (auto d = take(i, "config-dir"))
      flags.config_dir = *d;
    else if (auto r = take(i, "root-dir"))
      flags.root_dir = *r;
  }
  return flags;
}

std::optional<std::string> systemd_unit_of(std::string_view proc_cgroup) {
  for (const std::string& line : util::split(proc_cgroup, '\n', util::EmptyParts::Skip)) {
    // "ID:CONTROLLERS:PATH"; systemd's own hierarchy is the one that names units.
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string_view controllers =
        std::string_view(line).substr(first + 1, second - first - 1);
    const bool v2 = line.compare(0, first, "0") == 0 && controllers.empty();
    if (!v2 && controllers != "name=systemd") continue;
    const auto slash = line.rfind('/');
    const std::string leaf = line.substr(slash == std::string::npos ? second + 1 : slash + 1);
    if (leaf.size() > 8 && leaf.ends_with(".service")) return leaf;
  }
  return std::nullopt;
}

}  // namespace fed::reconfig
