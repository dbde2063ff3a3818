# shellcheck shell=bash
# Tears everything down, also after a crash: it finds the testbed's processes by pid file,
# by network namespace and by cgroup, not only by what a previous `up` remembered.

kill_pids() { local p; for p in "$@"; do kill -9 "$p" 2>/dev/null || true; done; }

testbed_pids() {
  local f ns
  for f in "$TB_RUN"/pids/*.pid; do [ -f "$f" ] && cat "$f"; done
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$TB_PREFIX-"); do
    ip netns pids "$ns" 2>/dev/null
  done
  # Container processes live in their own namespaces; their cgroups name the node.
  find /sys/fs/cgroup -path "*/$TB_PREFIX-*" -name cgroup.procs -exec cat {} + 2>/dev/null
  # Shims and forwards are found by the paths on their command lines.
  # (The last character in brackets keeps grep from matching its own command line.)
  grep -lsaE "${TB_RUN%?}[${TB_RUN: -1}]|${TB_STATE%?}[${TB_STATE: -1}]" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3
}

# This shell and its ancestors (a CI job whose command line names our dirs) are never targets.
ancestors() {
  local p=$$
  while [ "$p" -gt 1 ] 2>/dev/null; do
    echo "$p"
    p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) || break
  done
}

# runc freezes a container's cgroup (v1 freezer) to kill all of its processes, and thaws it
# after; killed in between (down, kill), it leaves the cgroup FROZEN, and a frozen process
# does not die of SIGKILL — it stays, holding its cgroups, until thawed.
thaw_cgroups() {
  local f
  for f in $(find /sys/fs/cgroup/freezer -path "*/$TB_PREFIX-*" -name freezer.state 2>/dev/null); do
    [ "$(cat "$f" 2>/dev/null)" = THAWED ] || echo THAWED >"$f" 2>/dev/null || true
  done
}

testbed_down() {
  local round pids keep
  keep=$(ancestors | tr '\n' '|')
  for round in 1 2 3 4 5; do
    thaw_cgroups
    pids=$(testbed_pids | sort -u | grep -vxE "${keep%|}|$BASHPID" || true)
    [ -z "$pids" ] && break
    # shellcheck disable=SC2086
    kill_pids $pids
    sleep 0.5
  done
  # Mounts below our dirs (overlay rootfs, shm, pod netns, kubelet volumes), deepest first.
  local m
  for m in $(awk -v a="$TB_STATE" -v b="$TB_RUN" '$5 ~ "^"a || $5 ~ "^"b {print $5}' /proc/self/mountinfo | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$TB_PREFIX-"); do
    ip netns del "$ns" 2>/dev/null || true
  done
  find /sys/fs/cgroup -depth -type d -path "*/$TB_PREFIX-*" -exec rmdir {} + 2>/dev/null || true
  rm -rf "$TB_STATE" "$TB_RUN"
  # The nodes' mount point for their own /var/lib/kubectl-fed (node_mountns); kept if not empty.
  rmdir /var/lib/kubectl-fed 2>/dev/null || true
  # The CNI result cache is shared by all runtimes on a machine; drop only our network's entries.
  rm -f /var/lib/cni/results/fedtb-* 2>/dev/null || true
  log "down: nothing of the testbed is left"
}

# Lists what is left; empty output means a clean machine (the e2e test checks each kind).
# Runs in a subshell without errexit: finding nothing is the normal, successful case.
testbed_leftovers() (
  set +e +o pipefail
  local pids keep
  keep=$(ancestors | tr '\n' '|')
  pids=$(testbed_pids | sort -u | grep -vxE "${keep%|}|$BASHPID" | tr '\n' ' ' || true)
  [ -n "${pids// /}" ] && echo "processes: $pids"
  ip netns list 2>/dev/null | awk '{print $1}' | grep "^$TB_PREFIX-" | sed 's/^/netns: /'
  awk -v a="$TB_STATE" -v b="$TB_RUN" '$5 ~ "^"a || $5 ~ "^"b {print "mount: "$5}' /proc/self/mountinfo
  find /sys/fs/cgroup -maxdepth 2 -type d -name "$TB_PREFIX-*" 2>/dev/null | sed 's/^/cgroup: /'
  ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | grep -E '^(c[0-9]+(cp|n[0-9]+)-[lw]|lan[0-9]+|wan|cni0)(@|$)' | sed 's/^/link: /'
  [ -e "$TB_STATE" ] && echo "dir: $TB_STATE"
  [ -e "$TB_RUN" ] && echo "dir: $TB_RUN"
  true
)
