# shellcheck shell=bash
# A real node: a namespace holding its own containerd (own root, state, socket, CNI dirs),
# a kubelet under its own cgroup root, and kube-proxy in iptables mode (legacy backend).

CGROUP_SUBSYSTEMS="cpu cpuacct cpuset memory devices freezer blkio pids systemd unified"

ensure_node_cgroup() {
  local root=$1 s dir
  for s in $CGROUP_SUBSYSTEMS; do
    [ -d "/sys/fs/cgroup/$s" ] || continue
    dir="/sys/fs/cgroup/$s/$root"
    mkdir -p "$dir"
    if [ "$s" = cpuset ]; then
      cat /sys/fs/cgroup/cpuset/cpuset.cpus >"$dir/cpuset.cpus"
      cat /sys/fs/cgroup/cpuset/cpuset.mems >"$dir/cpuset.mems"
    fi
  done
}

write_node_configs() {
  local c=$1 k=$2 nd nr p
  nd=$(ndir "$c" "$k"); nr=$(nrun "$c" "$k"); p="$(cdir "$c")/pki"
  mkdir -p "$nd/cni/net.d" "$nd/cni/ipam" "$nd/kubelet" "$nd/pod-logs" "$nd/volume-plugins" "$nr" "$nd/logs"
  cat >"$nd/containerd.toml" <<TOML
version = 2
root = "$nd/containerd"
state = "$nr/containerd"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$nr/containerd.sock"
[ttrpc]
  address = "$nr/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$nd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  enable_unprivileged_ports = true
  # This machine refuses to lower oom_score_adj; keep pods at or above containerd's own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$nd/cni/net.d"
TOML
  cat >"$nd/cni/net.d/10-fedtb.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "fedtb",
  "plugins": [
    {
      "type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$nd/cni/ipam",
        "ranges": [[{ "subnet": "$(node_pod_cidr "$c" "$k")" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
JSON
  : >"$nd/resolv.conf"   # no DNS server: nothing in a pod may resolve names outside the testbed
  # kubeadm's layout: the config in the kubelet's root dir, seen as /var/lib/kubelet on the node.
  cat >"$nd/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $(node_lan_ip "$c" "$k")
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: $p/ca.crt }
authorization: { mode: Webhook }
tlsCertFile: $p/node$k-serving.crt
tlsPrivateKeyFile: $p/node$k-serving.key
containerRuntimeEndpoint: unix://$nr/containerd.sock
cgroupDriver: cgroupfs
cgroupRoot: /${TB_PREFIX}-c$c-node$k
cgroupsPerQOS: true
enforceNodeAllocatable: ["pods"]
failSwapOn: false
failCgroupV1: false
resolvConf: $nd/resolv.conf
clusterDomain: cluster.local
podLogsDir: $nd/pod-logs
volumePluginDir: $nd/volume-plugins
evictionHard: { memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%" }
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
localStorageCapacityIsolation: false
hairpinMode: hairpin-veth
maxPods: 110
YAML
  cat >"$nd/kube-proxy-config.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: $(cdir "$c")/kube-proxy.kubeconfig }
mode: iptables
hostnameOverride: node$k
bindAddress: 0.0.0.0
clusterCIDR: $(pod_cidr "$c")
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 0.0.0.0:10256
conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }
iptables: { syncPeriod: 10s, minSyncPeriod: 0s }
YAML
}

# Separate machines have separate disks: each node's daemons (and so its pods' hostPath
# volumes) run in a mount namespace of their own in which /var/lib/kubectl-fed is the node's own
# directory, so e.g. every gateway agent keeps its own WireGuard key, and /var/lib/kubelet its
# kubelet's (kubeadm's layout: config.yaml, checkpoints, pods). The namespace is kept by a
# bind mount of nsfs under $TB_RUN/mnt (private, as `ip netns` does for /run/netns); mounts
# made in it (kubelet volumes, container rootfs) stay in it and go with it.
node_mountns() {
  local c=$1 k=$2 f="$TB_RUN/mnt/c$1-node$2" own kubelet
  own="$(ndir "$c" "$k")/host/var/lib/kubectl-fed"
  kubelet="$(ndir "$c" "$k")/kubelet"
  if ! findmnt -rn --mountpoint "$f" >/dev/null 2>&1; then
    mkdir -p "$TB_RUN/mnt" "$own" "$kubelet" /var/lib/kubectl-fed /var/lib/kubelet
    # Nodes start in parallel: one of them makes $TB_RUN/mnt private, once.
    (
      flock 9
      if ! findmnt -rn --mountpoint "$TB_RUN/mnt" >/dev/null 2>&1; then
        mount --bind "$TB_RUN/mnt" "$TB_RUN/mnt" && mount --make-private "$TB_RUN/mnt"
      fi
    ) 9>"$TB_RUN/mnt.lock"
    touch "$f"
    unshare --mount="$f" --propagation slave sh -c \
      'mount --bind "$1" /var/lib/kubectl-fed && mount --bind "$2" /var/lib/kubelet' sh "$own" "$kubelet" ||
      die "c$c/node$k: could not make the node's mount namespace"
  fi
  echo "$f"
}

start_node() {
  local c=$1 k=$2 nd nr ns
  nd=$(ndir "$c" "$k"); nr=$(nrun "$c" "$k"); ns=$(ns_node "$c" "$k")
  write_node_configs "$c" "$k"
  ensure_node_cgroup "${TB_PREFIX}-c$c-node$k"
  local TB_MOUNTNS; TB_MOUNTNS=$(node_mountns "$c" "$k")
  local TB_CPU_CGROUP="${TB_PREFIX}-c$c-node$k/system"
  start_daemon "c$c-node$k-containerd" "$ns" "$nd/logs/containerd.log" containerd --config "$nd/containerd.toml"
  wait_for "c$c/node$k containerd" 30 ctr -a "$nr/containerd.sock" version ||
    die "c$c/node$k: containerd did not start (log: $nd/logs/containerd.log)"
  import_images "$nr/containerd.sock"
  start_kubelet "$c" "$k"
  start_daemon "c$c-node$k-kube-proxy" "$ns" "$nd/logs/kube-proxy.log" "$TB_BIN/kube-proxy" \
    --config "$nd/kube-proxy-config.yaml" --v 1
}

# The kubelet runs under a supervisor that starts it again when it exits, as systemd's
# Restart=always does for kubeadm's kubelet.service: `kubectl fed reconfigure` restarts it by
# stopping it, as it does on any node without a systemd unit for it.
start_kubelet() {
  local c=$1 k=$2 nd
  nd=$(ndir "$c" "$k")
  local TB_MOUNTNS; TB_MOUNTNS=$(node_mountns "$c" "$k")
  local TB_CPU_CGROUP="${TB_PREFIX}-c$c-node$k/system"
  start_daemon "c$c-node$k-kubelet" "$(ns_node "$c" "$k")" "$nd/logs/kubelet.log" \
    "$TB_REPO/scripts/lib/testbed/supervise" "$TB_BIN/kubelet" \
    --config /var/lib/kubelet/config.yaml --kubeconfig "$nd/kubelet.kubeconfig" \
    --root-dir /var/lib/kubelet --cert-dir /var/lib/kubelet/pki \
    --hostname-override "node$k" --node-ip "$(node_lan_ip "$c" "$k")" --cloud-provider external \
    --node-labels "fedtb.io/cluster=c$c$([ "$k" = 1 ] && echo ",fedtb.io/gateway=true")" --v 1
}

# Restarts a node's kubelet with its config file as it is now, as systemctl restart would:
# stops it for its supervisor to start again (or starts it, when nothing supervises it).
restart_kubelet() {
  local c=${1#c} k=${2#node} pidfile pid kubelet
  pidfile="$TB_RUN/pids/c$c-node$k-kubelet.pid"
  [ -d "$(ndir "$c" "$k")" ] || die "restart-kubelet: no node c$c/node$k (scripts/testbed status)"
  if [ -f "$pidfile" ] && pid=$(cat "$pidfile") && pid_running "$pid"; then
    kubelet=$(pgrep -P "$pid" -x kubelet || true)
    [ -n "$kubelet" ] || die "restart-kubelet: c$c/node$k's supervisor (pid $pid) runs no kubelet"
    kill -TERM "$kubelet"
    wait_for "c$c/node$k kubelet to restart" 40 bash -c "k=\$(pgrep -P $pid -x kubelet) && [ \"\$k\" != $kubelet ]" ||
      die "restart-kubelet: c$c/node$k's kubelet did not start again (log: $(ndir "$c" "$k")/logs/kubelet.log)"
    return 0
  fi
  # First out of the caller's cgroups: a kubelet started from a pod's cgroup would die with it.
  leave_cgroups
  start_kubelet "$c" "$k"
}

# Moves this shell (and so what it starts next) to the root cgroup of every hierarchy. Run from
# kubectl fed reconfigure's agent pod (nsenter into PID 1's namespaces keeps the cgroups), a
# kubelet would stay in that pod's cgroup and be killed with it; systemctl restart would give it
# its own unit instead.
leave_cgroups() {
  local procs
  for procs in /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do
    [ -w "$procs" ] && echo "$BASHPID" >"$procs" 2>/dev/null || true
  done
}

# Records the node's PodCIDR on its Node object (the testbed allocates, not the controller-manager).
finish_node() {
  local c=$1 k=$2
  wait_for "c$c/node$k registration" 90 kubectl_c "$c" get node "node$k" ||
    die "c$c/node$k: kubelet did not register (log: $(ndir "$c" "$k")/logs/kubelet.log)"
  local cidr; cidr=$(node_pod_cidr "$c" "$k")
  if [ -z "$(kubectl_c "$c" get node "node$k" -o jsonpath='{.spec.podCIDR}')" ]; then
    kubectl_c "$c" patch node "node$k" --type merge \
      -p "{\"spec\":{\"podCIDR\":\"$cidr\",\"podCIDRs\":[\"$cidr\"]}}" >/dev/null
  fi
  cloud_init_node "$c" "$k"
}

# The testbed is its nodes' cloud. Its kubelets run with --cloud-provider external, so they
# keep the addresses the cloud gives them once set, and wait for it behind the
# node.cloudprovider.kubernetes.io/uninitialized taint, as on a cloud: here the addresses are
# the LAN one (InternalIP) and, for the gateway node1, its WAN one (ExternalIP) — which
# kubectl fed picks its gateway and gateway address by — then the taint is lifted, which is
# the part of a cloud-controller-manager's node initialisation the testbed needs.
cloud_init_node() {
  local c=$1 k=$2 addresses
  addresses="{\"type\":\"InternalIP\",\"address\":\"$(node_lan_ip "$c" "$k")\"}"
  [ "$k" = 1 ] && addresses+=",{\"type\":\"ExternalIP\",\"address\":\"$(wan_gw_ip "$c")\"}"
  addresses+=",{\"type\":\"Hostname\",\"address\":\"node$k\"}"
  kubectl_c "$c" patch node "node$k" --subresource=status --type merge \
    -p "{\"status\":{\"addresses\":[$addresses]}}" >/dev/null
  kubectl_c "$c" taint node "node$k" node.cloudprovider.kubernetes.io/uninitialized- >/dev/null 2>&1 || true
}
