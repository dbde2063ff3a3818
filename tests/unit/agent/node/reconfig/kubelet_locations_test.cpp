#include "shared/reconfig/kubelet_locations.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

using fed::ErrorCode;
using namespace fed::reconfig;
using namespace std::string_literals;

namespace {

// An `exists` that says yes to exactly `present`.
auto only(std::set<std::string> present) {
  return [present = std::move(present)](std::string_view p) {
    return present.count(std::string(p)) > 0;
  };
}

}  // namespace

TEST_CASE("every shipped layout names a file or a drop-in directory, a root dir and a service") {
  std::set<std::string_view> names;
  for (const auto& layout : known_layouts()) {
    INFO(layout.distribution);
    CHECK(names.insert(layout.distribution).second);
    CHECK((!layout.config_file.empty() || !layout.config_dir.empty()));
    CHECK_FALSE(layout.root_dir.empty());
    CHECK_FALSE(layout.service.empty());
    CHECK_FALSE(layout.source.empty());
  }
  CHECK(names == std::set<std::string_view>{"kubeadm", "k3s", "eks-al2023", "eks", "aks", "gke"});
}

TEST_CASE("find_layout returns the named row; an unknown name lists the known ones") {
  auto kubeadm = find_layout("kubeadm");
  REQUIRE(kubeadm.has_value());
  CHECK((*kubeadm)->config_file == "/var/lib/kubelet/config.yaml");
  CHECK((*kubeadm)->service == "kubelet");
  auto k3s = find_layout("k3s");
  REQUIRE(k3s.has_value());
  CHECK((*k3s)->config_file.empty());  // k3s has only the drop-in directory
  CHECK((*k3s)->service == "k3s");
  auto unknown = find_layout("openshift");
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().code() == ErrorCode::Invalid);
  CHECK(unknown.error().message().find("--distribution openshift") != std::string::npos);
  CHECK(unknown.error().message().find("kubeadm, k3s, eks-al2023, eks, aks, gke") !=
        std::string::npos);
  CHECK_FALSE(find_layout("").has_value());
}

TEST_CASE("detect_layout takes the first row whose file (or, without one, directory) exists") {
  CHECK(detect_layout(only({"/etc/default/kubeletconfig.json"})).value()->distribution == "aks");
  CHECK(detect_layout(only({"/home/kubernetes/kubelet-config.yaml"})).value()->distribution ==
        "gke");
  CHECK(detect_layout(only({"/var/lib/rancher/k3s/agent/etc/kubelet.conf.d"}))
            .value()
            ->distribution == "k3s");
  // Table order decides when several are present.
  CHECK(detect_layout(only({"/etc/kubernetes/kubelet/kubelet-config.json",
                            "/etc/default/kubeletconfig.json"}))
            .value()
            ->distribution == "eks");
  CHECK(detect_layout(only({"/etc/kubernetes/kubelet/config.json",
                            "/etc/kubernetes/kubelet/kubelet-config.json"}))
            .value()
            ->distribution == "eks-al2023");
  CHECK(detect_layout([](std::string_view) { return true; }).value()->distribution == "kubeadm");
  // A row with a config file is not matched by its drop-in directory alone.
  auto dir_only = detect_layout(only({"/etc/kubernetes/kubelet.conf.d"}));
  REQUIRE_FALSE(dir_only.has_value());
  CHECK(dir_only.error().code() == ErrorCode::NotFound);
  CHECK(dir_only.error().message().find("--kubelet-config") != std::string::npos);
}

TEST_CASE("parse_kubelet_cmdline reads --config, --config-dir and --root-dir in both forms") {
  const auto flags = parse_kubelet_cmdline(
      "/usr/bin/kubelet\0--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf\0"
      "--config=/var/lib/kubelet/config.yaml\0--root-dir\0/data/kubelet\0"
      "--config-dir\0/etc/kubernetes/kubelet.conf.d\0--v=2\0"s);
  CHECK(flags.config == "/var/lib/kubelet/config.yaml");
  CHECK(flags.root_dir == "/data/kubelet");
  CHECK(flags.config_dir == "/etc/kubernetes/kubelet.conf.d");

  const auto spaced = parse_kubelet_cmdline("kubelet\0--config\0/etc/k.yaml\0"s);
  CHECK(spaced.config == "/etc/k.yaml");
  CHECK_FALSE(spaced.config_dir.has_value());
  CHECK_FALSE(spaced.root_dir.has_value());

  // Go's flag package takes one dash as well; --config-dir is not --config.
  const auto dash = parse_kubelet_cmdline("kubelet\0-config=/a\0--config-dir=/d\0"s);
  CHECK(dash.config == "/a");
  CHECK(dash.config_dir == "/d");
}

TEST_CASE("parse_kubelet_cmdline: no flags, a flag without its value, argv[0] is not a flag") {
  const auto none = parse_kubelet_cmdline("kubelet\0--v=2\0"s);
  CHECK_FALSE(none.config.has_value());
  CHECK_FALSE(none.config_dir.has_value());
  CHECK_FALSE(none.root_dir.has_value());
  CHECK_FALSE(parse_kubelet_cmdline("").config.has_value());
  CHECK_FALSE(parse_kubelet_cmdline("kubelet\0--config\0"s).config.has_value());
  CHECK_FALSE(parse_kubelet_cmdline("--config=/x\0"s).config.has_value());
  CHECK_FALSE(parse_kubelet_cmdline("kubelet\0--configuration=/x\0"s).config.has_value());
  // Without the NUL separators (a /proc/PID/cmdline is never space-separated) there is one arg.
  CHECK_FALSE(parse_kubelet_cmdline("kubelet --config=/x").config.has_value());
}

TEST_CASE("systemd_unit_of reads the unit from systemd's hierarchy, v1 or v2, and nothing else") {
  CHECK(systemd_unit_of("0::/system.slice/kubelet.service\n") == "kubelet.service");
  CHECK(systemd_unit_of("12:pids:/system.slice/other.service\n"
                        "1:name=systemd:/system.slice/k3s-agent.service\n") == "k3s-agent.service");
  // A controller's path is not systemd's: its names are whatever that tool chose.
  CHECK_FALSE(systemd_unit_of("4:cpu,cpuacct:/fedtb-c2-node1/system.service\n").has_value());
  CHECK_FALSE(systemd_unit_of("0::/user.slice/user-0.slice/session-3.scope\n").has_value());
  CHECK_FALSE(systemd_unit_of("0::/kubepods/burstable/pod1/abc\n").has_value());
  CHECK_FALSE(systemd_unit_of("0::/.service\n").has_value());
  CHECK_FALSE(systemd_unit_of("").has_value());
}
