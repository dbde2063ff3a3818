#!/usr/bin/env bash
# kubectl fed reconfigure on the testbed's c2 (both nodes, real kubelets): a typo is refused
# before anything is created; the PodPreset feature is installed and injects into real pods
# (podpreset_checks.sh); cpuManagerPolicy=static with CPU 0 reserved rolls node by node, each
# drained, while HTTP requests to a Service on both nodes all succeed (traffic_checks.sh), and
# at the same time over c3's nodes; /configz shows it on all four and a Guaranteed pod created
# afterwards on each has CPU 1 to itself in its cgroup (cpuset_checks.sh); `reconfigure status -o json` says
# Succeeded; the RBAC is gone afterwards; CPU 7 (not on this machine) makes node1's kubelet
# fail, node1 rolls back and is Ready, node2 is not touched; the agent SIGKILLed mid-change
# leaves the old or the new config and the same command again converges; a CNI switch gives new
# pods the new network and --rollback the old one (cni_checks.sh). Everything is put back at
# the end.
. "$(dirname "$0")/../lib.sh"

BIN=${FED_BINARY_DIR:?FED_BINARY_DIR: the build directory}
FED="$BIN/plugin/kubectl-fed"
IMAGE=fed.local/fed-agent:reconfigure-e2e   # not the :dev tag other tests deploy
KC=$("$TESTBED" kubeconfig c2)
NODES=(node1 node2)
NS=kubectl-fed-system
work=$(mktemp -d)

fed() { "$FED" --kubeconfig "$KC" --context c2 "$@"; }
fed3() { "$FED" --kubeconfig "$("$TESTBED" kubeconfig c3)" --context c3 "$@"; }
configz() { k c2 get --raw "/api/v1/nodes/$1/proxy/configz"; }
configz_in() { k "$1" get --raw "/api/v1/nodes/$2/proxy/configz"; }
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
ready() { [ "$(k c2 get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]; }
policy() { configz "$1" | jq_ 'd["kubeletconfig"].get("cpuManagerPolicy","")'; }

had_ns=0
k c2 get namespace $NS >/dev/null 2>&1 && had_ns=1
had_ns3=0
k c3 get namespace $NS >/dev/null 2>&1 && had_ns3=1
for c in c2 c3; do
  for n in "${NODES[@]}"; do cp -p "/var/lib/fedtb/$c/$n/kubelet/config.yaml" "$work/$c-$n.yaml"; done
done

# Cluster $1's kubelets back to the configs saved above, restarted, without our annotations.
restore_kubelets() {
  local c=$1 n
  for n in "${NODES[@]}"; do
    cp -p "$work/$c-$n.yaml" "/var/lib/fedtb/$c/$n/kubelet/config.yaml"
    rm -f "/var/lib/fedtb/$c/$n/kubelet/cpu_manager_state" \
      "/var/lib/fedtb/$c/$n/kubelet/config.yaml.kubectl-fed-backup"
    "$TESTBED" restart-kubelet "$c" "$n" >/dev/null 2>&1
    k "$c" annotate node "$n" kubectl-fed.io/reconfigure-phase- kubectl-fed.io/reconfigure-desired- \
      kubectl-fed.io/reconfigure-original- kubectl-fed.io/reconfigure-message- \
      kubectl-fed.io/reconfigure-updated- >/dev/null 2>&1
  done
}

restore() {
  local rc=$?
  set +e
  declare -F podpreset_restore >/dev/null && podpreset_restore >/dev/null 2>&1
  declare -F traffic_restore >/dev/null && traffic_restore >/dev/null 2>&1
  declare -F cni_restore >/dev/null && cni_restore >/dev/null 2>&1
  declare -F cpuset_restore >/dev/null && cpuset_restore c2 c3
  for c in c2 c3; do
    k "$c" -n $NS delete pod -l app.kubernetes.io/component=reconfigure-node --timeout=60s >/dev/null 2>&1
    k "$c" delete clusterrolebinding,clusterrole kubectl-fed:reconfigure-node --ignore-not-found >/dev/null 2>&1
    k "$c" -n $NS delete serviceaccount kubectl-fed-reconfigure --ignore-not-found >/dev/null 2>&1
  done
  [ $had_ns = 1 ] || k c2 delete namespace $NS --ignore-not-found --wait=false >/dev/null 2>&1
  [ $had_ns3 = 1 ] || k c3 delete namespace $NS --ignore-not-found --wait=false >/dev/null 2>&1
  restore_kubelets c3
  restore_kubelets c2
  for n in "${NODES[@]}"; do
    for _ in $(seq 90); do
      [ "$(policy "$n" 2>/dev/null)" = none ] && ready "$n" && break
      sleep 1
    done
    [ "$(policy "$n" 2>/dev/null)" = none ] && ready "$n" || echo "WARN: c2/$n not restored" >&2
  done
  rm -rf "$work"
  [ "$rc" = 0 ] || failure_summary
}
trap restore EXIT

# The product's image.
"$TESTBED" agent-image "$IMAGE" "$BIN/agent/fed-agent" >/dev/null
pass "image $IMAGE loaded into every node"

# No kubelet path and no restart command: each node's agent asks its own kubelet where its
# files are, and stops it for its supervisor to start again (the testbed's nodes have no systemd).
flags=(--image "$IMAGE" --max-unavailable 1)

# 1. A typo: exit 2, the suggestion, nothing created.
rc=0; fed reconfigure --set cpuManagerPolicyy=static "${flags[@]}" 2>"$work/err" || rc=$?
expect_eq "unknown field exits 2" "$rc" 2
grep -q 'did you mean cpuManagerPolicy' "$work/err" && pass "the message suggests cpuManagerPolicy" ||
  fail "no suggestion: $(cat "$work/err")"
expect_eq "no ClusterRole created" "$(k c2 get clusterrole kubectl-fed:reconfigure-node -o name 2>/dev/null)" ""

# 2. The PodPreset API (a CRD and a webhook): podpreset_checks.sh.
. "$(dirname "$0")/podpreset_checks.sh"

# 3. The static CPU policy on both nodes, one at a time, each drained first, while a client
#    loop of HTTP requests goes to a Service with a replica on each node (traffic_checks.sh).
#    c3 gets the same at the same time, without drain, from a second run.
. "$(dirname "$0")/cpuset_checks.sh"
shared=$(cat /sys/fs/cgroup/cpuset/fedtb-c3-node1/cpuset.cpus)
expect_eq "before: a Guaranteed pod on c3/node1 shares the node's CPUs" "$(guaranteed_cpuset c3 node1 before)" "$shared"
k c3 -n cpuset-e2e delete pod before --wait >/dev/null
flags3=(--image "$IMAGE" --max-unavailable 1)
. "$(dirname "$0")/traffic_checks.sh"
traffic_start
start=$SECONDS
fed3 reconfigure --set cpuManagerPolicy=static --set reservedSystemCPUs=0 "${flags3[@]}" --timeout 60s -o json \
  >"$work/apply3.json" 2>"$work/apply3.err" &
c3_pid=$!
rc=0; fed reconfigure --set cpuManagerPolicy=static --set reservedSystemCPUs=0 "${flags[@]}" --drain --timeout 60s -o json \
  >"$work/apply.json" 2>"$work/apply.err" || rc=$?
cat "$work/apply.json" "$work/apply.err"
expect_eq "reconfigure exits 0" "$rc" 0
echo "# rollout of 2 nodes with --drain took $((SECONDS - start)) s"
traffic_stop
rc=0; wait $c3_pid || rc=$?
cat "$work/apply3.json" "$work/apply3.err"
expect_eq "c3's run exits 0, both nodes Applied" \
  "$rc:$(jq_ '",".join(n["result"] for n in d["clusters"][0]["nodes"])' <"$work/apply3.json")" "0:Applied,Applied"
for n in "${NODES[@]}"; do
  expect_eq "c3/$n /configz cpuManagerPolicy and reservedSystemCPUs" \
    "$(configz_in c3 "$n" | jq_ 'd["kubeletconfig"]["cpuManagerPolicy"] + " " + d["kubeletconfig"]["reservedSystemCPUs"]')" "static 0"
done
for c in c2 c3; do
  for n in "${NODES[@]}"; do
    expect_eq "after: a Guaranteed pod on $c/$n has CPU 1 to itself (its cgroup's cpuset)" \
      "$(guaranteed_cpuset "$c" "$n" "pinned-$n")" 1
  done
done
# Their CPUs back before the next agent pods (10m each) are admitted.
for c in c2 c3; do k "$c" delete namespace cpuset-e2e --timeout=90s >/dev/null; done
for n in "${NODES[@]}"; do
  expect_eq "$n uncordoned after its change" "$(k c2 get node "$n" -o jsonpath='{.spec.unschedulable}')" ""
done
expect_eq "both nodes Applied" "$(jq_ '",".join(n["result"] for n in d["clusters"][0]["nodes"])' <"$work/apply.json")" \
  "Applied,Applied"
for n in "${NODES[@]}"; do
  expect_eq "$n /configz cpuManagerPolicy" "$(policy "$n")" static
  expect_eq "$n /configz reservedSystemCPUs" "$(configz "$n" | jq_ 'd["kubeletconfig"]["reservedSystemCPUs"]')" 0
  ready "$n" && pass "$n Ready" || fail "$n not Ready"
done
fed reconfigure status -o json >"$work/status.json"
expect_eq "status: both Succeeded and in sync" \
  "$(jq_ '",".join(n["phase"] + ":" + str(n["inSync"]) for n in d["clusters"][0]["nodes"])' <"$work/status.json")" \
  "Succeeded:True,Succeeded:True"
expect_eq "RBAC removed after success" "$(k c2 get clusterrole kubectl-fed:reconfigure-node -o name 2>/dev/null)" ""
expect_eq "no agent pod left" "$(k c2 -n $NS get pods -o name 2>/dev/null | grep -c reconfigure- || true)" 0

# 4. CPU 7 does not exist here: node1's kubelet refuses to start, node1 rolls back, node2 waits.
node2_pid=$(cat /run/fedtb/pids/c2-node2-kubelet.pid)
rc=0; fed reconfigure --set reservedSystemCPUs=7 "${flags[@]}" --timeout 25s -o json \
  >"$work/broken.json" 2>"$work/broken.err" || rc=$?
cat "$work/broken.json" "$work/broken.err"
expect_eq "a rolled-back node exits 1" "$rc" 1
expect_eq "node1 RolledBack, node2 Skipped" \
  "$(jq_ '",".join(n["result"] for n in d["clusters"][0]["nodes"])' <"$work/broken.json")" "RolledBack,Skipped"
jq_ 'd["clusters"][0]["nodes"][0]["message"]' <"$work/broken.json" | grep -q 'not healthy within 25s' &&
  pass "the reason is reported" || fail "no reason in the result"
expect_eq "node1 runs the old reservation" "$(configz node1 | jq_ 'd["kubeletconfig"]["reservedSystemCPUs"]')" 0
ready node1 && pass "node1 Ready after the rollback" || fail "node1 not Ready"
expect_eq "node2's kubelet was not restarted" "$(cat /run/fedtb/pids/c2-node2-kubelet.pid)" "$node2_pid"
fed reconfigure status -o json >"$work/status2.json"
expect_eq "status: node1 RolledBack, node2 still Succeeded" \
  "$(jq_ '",".join(n["phase"] for n in d["clusters"][0]["nodes"])' <"$work/status2.json")" \
  "RolledBack,Succeeded"

# 5. The agent killed (SIGKILL) in the middle of node1's change (a kubelet feature gate and
#    maxPods, acceptance 2): the file is the old or the new text, never a mix; the kubelet comes
#    back Ready by itself; the same command again resumes and converges on both nodes, and
#    /configz shows both values.
phase() { k c2 get node "$1" -o jsonpath='{.metadata.annotations.kubectl-fed\.io/reconfigure-phase}'; }
pods_cap() { configz "$1" | jq_ 'd["kubeletconfig"]["maxPods"]'; }
old_pods=$(pods_cap node1)
cp "/var/lib/fedtb/c2/node1/kubelet/config.yaml" "$work/before-kill.yaml"
fed reconfigure --set maxPods=60 --set featureGates.CPUManagerPolicyAlphaOptions=true "${flags[@]}" --timeout 60s -o json >"$work/killed.json" 2>"$work/killed.err" &
fed_pid=$!
killed_in=""
for _ in $(seq 600); do  # 120 s in steps of 0.2 s: the phases between Started and Succeeded are short
  p=$(phase node1)
  case $p in
    # Not ConfigWritten: the restart command starts then, and on the testbed it is the agent's
    # child until it leaves the pod's cgroup (milliseconds later); a kill in that window takes
    # the restart with it. systemctl restart, a request to PID 1, has no such window.
    Started | Restarted)
      pkill -KILL -f 'fed-agent reconfigure-node --node node1' && killed_in=$p && break ;;
  esac
  sleep 0.2
done
[ -n "$killed_in" ] && pass "the agent was killed in phase $killed_in" || fail "never saw node1's change in progress"
rc=0; wait $fed_pid || rc=$?
cat "$work/killed.json" "$work/killed.err"
expect_eq "the killed run exits 1, node1 Failed, node2 untouched" \
  "$rc:$(jq_ '",".join(n["result"] for n in d["clusters"][0]["nodes"])' <"$work/killed.json")" "1:Failed,Skipped"
python3 - "$work/before-kill.yaml" "/var/lib/fedtb/c2/node1/kubelet/config.yaml" <<'PY' && pass "node1's config file is the old or the new text" || fail "node1's config file is neither"
import sys, yaml
old, now = (yaml.safe_load(open(f)) for f in sys.argv[1:])
new = dict(old, maxPods=60, featureGates=dict(old.get("featureGates") or {}, CPUManagerPolicyAlphaOptions=True))
sys.exit(0 if now in (old, new) else 1)
PY
eventually 90 "node1 is Ready without help after the kill" ready node1
running=$(pods_cap node1)
[ "$running" = "$old_pods" ] || [ "$running" = 60 ] && pass "node1 runs maxPods $running (old $old_pods or new 60)" ||
  fail "node1 runs maxPods $running"
rc=0; fed reconfigure --set maxPods=60 --set featureGates.CPUManagerPolicyAlphaOptions=true "${flags[@]}" --timeout 60s -o json >"$work/resumed.json" 2>"$work/resumed.err" || rc=$?
cat "$work/resumed.json" "$work/resumed.err"
expect_eq "the same command again exits 0" "$rc" 0
for n in "${NODES[@]}"; do
  expect_eq "$n runs maxPods 60" "$(pods_cap "$n")" 60
  expect_eq "$n runs the feature gate CPUManagerPolicyAlphaOptions" \
    "$(configz "$n" | jq_ 'd["kubeletconfig"].get("featureGates", {}).get("CPUManagerPolicyAlphaOptions")')" True
  expect_eq "$n phase Succeeded" "$(phase "$n")" Succeeded
done

# 6. The CNI switch and its rollback on both nodes: cni_checks.sh.
. "$(dirname "$0")/cni_checks.sh"
finish
