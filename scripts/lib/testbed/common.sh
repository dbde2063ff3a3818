# shellcheck shell=bash
# Shared settings and helpers of scripts/testbed. Everything the testbed creates is named
# with the prefix "fedtb" (netns, cgroups, state dirs) so that `down` can find it after a crash.

K8S_VERSION=${FED_K8S_VERSION:-v1.33.13}
KWOK_VERSION=${FED_KWOK_VERSION:-v0.7.0}
FED_CACHE_DIR=${FED_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-fed}
TB_STATE=${FED_TESTBED_DIR:-/var/lib/fedtb}   # certs, configs, logs, runtime roots
TB_RUN=/run/fedtb                             # sockets, pid files, containerd state
TB_PREFIX=fedtb
TB_BIN="$FED_CACHE_DIR/bin/k8s-$K8S_VERSION"
TB_KWOK_BIN="$FED_CACHE_DIR/bin/kwok-$KWOK_VERSION"
TB_TOOLS="$TB_RUN/tools"                      # PATH overrides (iptables -> legacy) for nodes
TB_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)

# Address plan; every address lives inside a network namespace the testbed created.
#   cluster i LAN  172.30.i.0/24   control plane .10, node k at .(10+k)
#   WAN            172.31.0.0/24   gateway node (node1) of cluster i at .i, control plane at .(100+i)
#   PodCIDR        10.24i.0.0/16 (or 10.244.0.0/16 for all with --same-pod-cidr), node k: /24 k-1
#   ServiceCIDR    10.10i.0.0/16 (kubernetes Service at .0.1)
#   host access    https://127.0.0.1:(16000+i) forwarded into the control-plane namespace
lan_net() { echo "172.30.$1"; }
cp_lan_ip() { echo "172.30.$1.10"; }
node_lan_ip() { echo "172.30.$1.$((10 + $2))"; }
wan_gw_ip() { echo "172.31.0.$1"; }
cp_wan_ip() { echo "172.31.0.$((100 + $1))"; }
host_port() { echo $((16000 + $1)); }
pod_cidr() { if [ "${TB_SAME_POD_CIDR:-0}" = 1 ]; then echo "10.244.0.0/16"; else echo "10.24$1.0.0/16"; fi; }
pod_prefix() { local c; c=$(pod_cidr "$1"); echo "${c%.0.0/16}"; }
node_pod_cidr() { echo "$(pod_prefix "$1").$(($2 - 1)).0/24"; }
service_cidr() { echo "10.10$1.0.0/16"; }
kube_service_ip() { echo "10.10$1.0.1"; }

cluster_name() { echo "c$1"; }
node_name() { echo "node$2"; }
ns_net() { echo "${TB_PREFIX}-net"; }
ns_cp() { echo "${TB_PREFIX}-c$1-cp"; }
ns_node() { echo "${TB_PREFIX}-c$1-node$2"; }
cdir() { echo "$TB_STATE/c$1"; }
ndir() { echo "$TB_STATE/c$1/node$2"; }
nrun() { echo "$TB_RUN/c$1-node$2"; }

log() { printf '%s testbed: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'testbed: error: %s\n' "$*" >&2; exit 1; }

# Whether process PID runs: present and not a zombie. A killed daemon (`kill`) is a zombie
# until the machine's PID 1 reaps it, which some never do promptly; kill -0 says yes to it.
pid_running() {
  local stat
  stat=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $stat != Z* ]]
}

# Starts a long-running process inside a netns, detached, with its pid recorded (and in CPU
# cgroup TB_CPU_CGROUP, if set).
#   start_daemon NAME NETNS LOGFILE CMD...
start_daemon() {
  local name=$1 netns=$2 logfile=$3; shift 3
  mkdir -p "$TB_RUN/pids" "$(dirname "$logfile")"
  local pidfile="$TB_RUN/pids/$name.pid"
  if [ -f "$pidfile" ] && pid_running "$(cat "$pidfile")"; then return 0; fi
  if [ -n "$netns" ]; then
    # nsenter, not `ip netns exec`: the latter remounts /sys in a private mount namespace,
    # which hides the cgroup hierarchies that kubelet and runc need. A node's daemons also enter
    # the node's mount namespace (TB_MOUNTNS, see node_mountns).
    setsid nsenter --net="/run/netns/$netns" ${TB_MOUNTNS:+--mount="$TB_MOUNTNS" --wd="$PWD"} \
      env PATH="$TB_TOOLS:$PATH" "$@" >>"$logfile" 2>&1 </dev/null &
  else
    setsid "$@" >>"$logfile" 2>&1 </dev/null &
  fi
  echo $! >"$pidfile"
  # A machine's daemons share one CPU cgroup (TB_CPU_CGROUP: the control plane's, or a node's
  # "system" beside its kubepods), as separate machines would. Left in the root cgroup, each of
  # their hundreds of threads weighed as much as a whole node's pods, and with five clusters
  # the pods (the federation etcd, the managers) waited for a CPU (issue 25).
  if [ -n "${TB_CPU_CGROUP:-}" ] && [ -d /sys/fs/cgroup/cpu ]; then
    mkdir -p "/sys/fs/cgroup/cpu/$TB_CPU_CGROUP"
    echo $! >"/sys/fs/cgroup/cpu/$TB_CPU_CGROUP/cgroup.procs" 2>/dev/null || true
  fi
}

# Waits until CMD succeeds, up to SECONDS; prints what it waited for on failure.
wait_for() {
  local what=$1 seconds=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      log "timed out after ${seconds}s waiting for $what"
      return 1
    fi
    sleep 0.5
  done
}

# The testbed's own kubectl, built at the same version as the clusters.
KUBECTL=${KUBECTL:-$TB_BIN/kubectl}
kubectl_c() { local c=$1; shift; "$KUBECTL" --kubeconfig "$(cdir "$c")/admin.kubeconfig" "$@"; }
