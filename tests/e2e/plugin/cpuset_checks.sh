# Sourced by reconfigure_test.sh (`k`, $work): what a Guaranteed pod really gets, read from its
# container's cpuset cgroup on the testbed node (cgroup v1, the node's own cgroup root
# fedtb-CLUSTER-NODE). Under the kubelet's default policy (none) it shares every CPU; under
# the static policy with CPU 0 reserved it gets CPU 1 to itself (issue 7, acceptance 1).

# guaranteed_cpuset CLUSTER NODE NAME: runs a 1-CPU Guaranteed pod NAME on the node in
# namespace cpuset-e2e and prints its container's cpuset.cpus ("none" when it did not run).
guaranteed_cpuset() {
  local c=$1 n=$2 name=$3 id="" dir
  k "$c" create namespace cpuset-e2e >/dev/null 2>&1 || true
  k "$c" -n cpuset-e2e apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $name}
spec:
  nodeName: $n
  terminationGracePeriodSeconds: 0
  containers:
    - name: main
      image: fed.local/busybox:1
      command: [sleep, "3600"]
      resources:
        requests: {cpu: "1", memory: 64Mi}
        limits: {cpu: "1", memory: 64Mi}
YAML
  for _ in $(seq 90); do
    id=$(k "$c" -n cpuset-e2e get pod "$name" -o jsonpath='{.status.containerStatuses[0].containerID}' 2>/dev/null)
    [ -n "$id" ] && [ "$(k "$c" -n cpuset-e2e get pod "$name" -o jsonpath='{.status.phase}')" = Running ] && break
    id=""
    sleep 1
  done
  [ -n "$id" ] || { echo none; return; }
  [ "$(k "$c" -n cpuset-e2e get pod "$name" -o jsonpath='{.status.qosClass}')" = Guaranteed ] || { echo not-guaranteed; return; }
  dir=$(find "/sys/fs/cgroup/cpuset/fedtb-$c-$n" -type d -name "*${id#*://}*" 2>/dev/null | head -1)
  [ -n "$dir" ] && cat "$dir/cpuset.cpus" || echo no-cgroup
}

cpuset_restore() {
  for c in "$@"; do k "$c" delete namespace cpuset-e2e --ignore-not-found --wait=false >/dev/null 2>&1; done
}
