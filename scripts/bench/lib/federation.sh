# Sourced by the offloading benchmarks (scripts/bench/offload-*, replicate-deployments): the
# build, a testbed of their own with a federation on it, and the manager's worker count.
# Expects $repo; sets $build, $tb and $fed.

build=${FED_BUILD_DIR:-$repo/build/release}
tb="$repo/scripts/testbed"
fed="$build/plugin/kubectl-fed"

now_ms() { local t=${EPOCHREALTIME/./}; echo "${t:0:-3}"; }
# stamp: each line of stdin prefixed with the time it was read (ms). No process per line: on two
# cores a `date` per watch event put the stamps of a burst of 50 events seconds late.
stamp() {
  local line t
  while IFS= read -r line; do t=${EPOCHREALTIME/./}; printf '%s %s\n' "${t:0:-3}" "$line"; done
}

# bench_prepare NAME: root (the testbed), the plugin and the agent built, no testbed left over,
# and the testbed taken down on exit.
bench_prepare() {
  [ "$(id -u)" -eq 0 ] || { echo "$1: run as root (the testbed)" >&2; exit 1; }
  [ -d "$build" ] || cmake --preset release >/dev/null
  cmake --build "$build" --target kubectl-fed fed-agent -j2 >/dev/null
  trap '"$tb" down >/dev/null 2>&1 || true' EXIT
  "$tb" down >/dev/null 2>&1 || true
}

# federation_init: the agent image loaded and c1 initialised as the host.
federation_init() {
  "$tb" agent-image fed.local/fed-agent:dev "$build/agent/fed-agent" >/dev/null
  "$fed" init --context c1 >/dev/null
}

# federation_hosts_up HOSTS MEMBERS: a testbed of HOSTS + MEMBERS one-node clusters; c1
# initialised, c2..cHOSTS added as hosts, the others joined as members through c1. KUBECONFIG
# holds every cluster's context.
federation_hosts_up() {
  local hosts=$1 members=$2 clusters i kc=""
  clusters=$((hosts + members))
  "$tb" up --clusters "$clusters" --nodes 1 >/dev/null
  for i in $(seq 1 "$clusters"); do kc="$kc${kc:+:}$("$tb" kubeconfig "c$i")"; done
  export KUBECONFIG=$kc
  federation_init
  until [ "$(kubectl --context c1 -n kubectl-fed-system get cm fed-leader -o jsonpath='{.data.host}' 2>/dev/null)" = c1 ]; do
    sleep 1
  done
  for i in $(seq 2 "$hosts"); do
    "$fed" host add "c$i" --context c1 --host-context "c$i" >/dev/null
  done
  for i in $(seq $((hosts + 1)) "$clusters"); do
    "$fed" join "c$i" --context c1 --member-context "c$i" --wait --timeout 3m >/dev/null
  done
}

# light_federation_up MAX: c1 (one node) and light members l1..lMAX, each joined, every virtual
# node registered. KUBECONFIG is c1's.
light_federation_up() {
  local max=$1 start t0 j
  start=$SECONDS
  "$tb" up --clusters 1 --nodes 1 --light-members "$max" >/dev/null
  echo "testbed: c1 and $max light members up in $((SECONDS - start)) s"
  export KUBECONFIG="$("$tb" kubeconfig c1)"
  federation_init
  t0=$(now_ms)
  for j in $(seq 1 "$max"); do
    "$fed" join "l$j" --context c1 --member-kubeconfig "$("$tb" kubeconfig "l$j")" \
      --member-api-endpoint "https://172.31.0.99:$((7000 + j))" \
      --namespace-quota 0 >/dev/null
  done
  echo "join: $max members in $(($(now_ms) - t0)) ms (sequential, no --wait)"
  until [ "$(kubectl --context c1 get nodes -l kubectl-fed.io/type=virtual-node -o name | grep -c .)" -ge "$max" ]; do
    sleep 1
  done
  echo "virtual nodes: $max registered $(($(now_ms) - t0)) ms after the first join"
}

# set_manager_workers W: the manager's args as installed plus --offload-workers=W, rolled out
# and settled.
set_manager_workers() {
  [ -n "${manager_args:-}" ] || manager_args=$(kubectl --context c1 -n kubectl-fed-system get deployment fed-manager \
    -o jsonpath='{.spec.template.spec.containers[0].args}')
  local patch
  patch=$(jq -cn --argjson a "$manager_args" --arg w "--offload-workers=$1" \
    '[{op: "replace", path: "/spec/template/spec/containers/0/args", value: ($a + [$w])}]')
  kubectl --context c1 -n kubectl-fed-system patch deployment fed-manager --type json -p "$patch" >/dev/null
  kubectl --context c1 -n kubectl-fed-system rollout status deployment fed-manager --timeout 120s >/dev/null
  # A new manager's first passes visit every member (Peerings, NamespaceMaps, Leases, the
  # virtual nodes' pod watches): with 50 members they keep the two cores busy for some
  # seconds, and the first offloading measured in them took twice as long. Measure after.
  sleep "${FED_BENCH_SETTLE:-30}"
}

# light_member_terms N: NodeSelectorTerms (flow YAML) selecting light members l1..lN by cluster
# id. A term lists at most 32 values (the CRDs' limit), so 25 per term, the terms ORed.
light_member_terms() {
  seq 1 "$1" | sed 's/^/l/' | xargs -n 25 | sed 's/ /, /g' |
    sed 's/.*/{matchExpressions: [{key: kubectl-fed.io\/cluster-id, operator: In, values: [&]}]}/' | paste -sd, -
}

# watch_count FILE KUBECTL_GET_ARGS... -- JQ: `kubectl get -w -o json` of one object, each event
# reduced by JQ to a number, written to FILE as "<ms> <number>" lines; prints the watcher's pid.
# One long-lived kubectl instead of one per poll: on two cores a kubectl every 0.2 s would take
# CPU from the API servers being measured.
watch_count() {
  local file=$1; shift
  local args=() jqexpr
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  jqexpr=$2
  # Its stdout is not the caller's: the caller reads the pid through $( ), which would wait
  # for the watcher to end.
  (kubectl get "${args[@]}" -w -o json 2>/dev/null | jq --unbuffered -r "$jqexpr" |
    stamp >"$file") >/dev/null 2>&1 &
  echo $!
}

# wait_count FILE N: waits until a line of FILE says N or more; prints that line's time (ms).
wait_count() {
  local at
  until at=$(awk -v n="$2" '$2 >= n { print $1; exit }' "$1") && [ -n "$at" ]; do sleep 0.1; done
  echo "$at"
}

# stop_watch PID: ends a watch_count watcher and its pipeline.
stop_watch() {
  pkill -P "$1" 2>/dev/null || true
  kill "$1" 2>/dev/null || true
}
