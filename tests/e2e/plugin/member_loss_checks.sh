# shellcheck shell=bash
# Members leaving without dropping traffic (issue 29, docs/OFFLOAD.md "Leaving"), sourced by
# datapath_test.sh. Namespace `move` is offloaded to c2 and c3 (strategy Remote); a Deployment of
# 4 web servers spreads 2 + 2 over them behind a Service on c1, and a client pod on a real node
# of c1 requests it every 0.2 s (a request not answered within 2 s fails; a failure's line
# says when it ended and wget's reason, so a timeout under load and a refused connection differ
# in the log). Then:
# - the offloading's selector narrowed to c2: c3's pods move to c2 one at a time before c3's
#   replica goes, `offload --wait` returns after that, and no request fails; widened again and
#   the Deployment respread over both;
# - c3 is lost without warning (cut off the WAN, `testbed partition`): c1's gateway reports its
#   tunnel with c3 Lost, c3's pods on c1 turn not Ready (MemberUnreachable) and leave the
#   Service's endpoints, and from then on every request is answered by c2's pods. The times are
#   printed (scripts/bench/member-loss measures them). Healed: the same pods are Ready again.
# - a PodDisruptionBudget that cannot be met stops `unjoin c2` with a non-zero exit code and
#   its name, and nothing torn down;
# - `unjoin c2` moves c2's pods to c3 first: no request fails;
# - `unoffload namespace move` brings the pods home to c1 first: no request fails.
# It ends with c2 unjoined, as the rest of the scenario expects.

# ready_endpoints NODE: how many ready endpoints of Service move/both are on node NODE.
ready_endpoints() {
  k c1 -n move get endpointslices -l kubernetes.io/service-name=both -o json |
    jq --arg n "$1" '[.items[].endpoints[]? | select(.nodeName == $n and .conditions.ready == true)] | length'
}
# client_requests FROM_UPTIME: the client's log lines ("ok|fail UPTIME") from then on.
client_requests() { awk -v t="$1" '$2 >= t' <(k c1 -n default logs leaveclient); }
uptime_now() { cut -d' ' -f1 /proc/uptime; }
# no_failures_since WHAT FROM_UPTIME: every request since FROM_UPTIME was answered.
no_failures_since() {
  local r
  r=$(client_requests "$2")
  [ "$(grep -c '^ok' <<<"$r")" -ge 5 ] && ! grep -q '^fail' <<<"$r" &&
    pass "$1: none of $(grep -c '^ok' <<<"$r") requests failed" ||
    fail "$1: $(grep -c '^fail' <<<"$r") of $(wc -l <<<"$r") requests failed: $(grep '^fail' <<<"$r" | head -5 | tr '\n' ' ')"
}

# spread_over_both WHAT: waits until move/both has 2 ready endpoints on each member.
spread_over_both() {
  eventually 120 "$1" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n move get endpointslices -l kubernetes.io/service-name=both -o json | jq -r '[.items[].endpoints[]? | select(.conditions.ready) | .nodeName] | sort | join(\" \")')\" = 'kubectl-fed-c2 kubectl-fed-c2 kubectl-fed-c3 kubectl-fed-c3' ]"
}

# member_deselected MODE: c3 leaves the offloading's selection under traffic.
member_deselected() {
  local mode=$1 t0
  t0=$(uptime_now)
  ok_run narrow offload namespace move --context c1 --selector 'kubectl-fed.io/cluster-id in (c2)' \
    --pod-offloading-strategy Remote --wait --timeout 3m -o json
  expect_eq "$mode: deselected: offload --wait returned once c3's replica was gone" \
    "$(jq -r '[.result, .phase, (.clusters | keys | join(","))] | join(" ")' "$work/narrow.out") $(k c3 get ns move-c1 -o name --ignore-not-found)" \
    "updated Ready c2 "
  eventually 10 "$mode: deselected: the 4 ready endpoints are on c2" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n move get endpointslices -l kubernetes.io/service-name=both -o json | jq '[.items[].endpoints[]? | select(.nodeName == \"kubectl-fed-c2\" and .conditions.ready == true)] | length')\" = 4 ]"
  sleep 3
  no_failures_since "$mode: deselected: c3's pods moved to c2 first" "$t0"
  ok_run widen offload namespace move --context c1 --selector 'kubectl-fed.io/cluster-id in (c2,c3)' \
    --pod-offloading-strategy Remote --wait --timeout 60s -o json
  sleep 1  # the webhook answers from the manager's informer
  k c1 -n move scale deployment both --replicas 0 >/dev/null
  eventually 60 "$mode: deselected: widened again, scaled to 0" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n move get pods -l app=both -o name)\" ]"
  k c1 -n move scale deployment both --replicas 4 >/dev/null
  spread_over_both "$mode: deselected: scaled to 4, 2 ready endpoints on each member again"
}

members_leaving() {
  local mode=$1 t_cut t_withdrawn pods_before
  k c1 create namespace move >/dev/null
  ok_run offmove offload namespace move --context c1 --selector 'kubectl-fed.io/cluster-id in (c2,c3)' \
    --pod-offloading-strategy Remote --wait --timeout 60s -o json
  sleep 1  # the webhook answers from the manager's informer
  k c1 -n move apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: both}
spec:
  replicas: 4
  selector: {matchLabels: {app: both}}
  template:
    metadata: {labels: {app: both}}
    spec:
      topologySpreadConstraints:
        # Honor: a cordoned virtual node (its unschedulable taint) is no domain to spread over.
        - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,
           nodeTaintsPolicy: Honor, labelSelector: {matchLabels: {app: both}}}
      containers:
        # Ready once it accepts connections, as a real service would say: a backend is healthy
        # when its probe says so, not when its process starts.
        - {name: web, image: fed.local/busybox:1, command: [httpd, -f, -p, "8080", -h, /www],
           readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}}
YAML
  k c1 -n move expose deployment both --port 8080 >/dev/null
  spread_over_both "$mode: leaving: move/both has 2 ready endpoints on each member"
  local cip
  cip=$(k c1 -n move get service both -o jsonpath='{.spec.clusterIP}')
  # The client stamps each request with the kernel's uptime, the clock the test reads too. It
  # runs on a real node of c1, outside move (whose pods the webhook sends to members).
  k c1 -n default run leaveclient --image fed.local/busybox:1 --restart Never \
    --overrides='{"spec":{"nodeName":"node2"}}' --command -- sh -c \
    "while true; do t=\$(cut -d' ' -f1 /proc/uptime); if e=\$(timeout 2 wget -q -O /dev/null http://$cip:8080/ 2>&1); then echo ok \$t; else echo fail \$t \$(cut -d' ' -f1 /proc/uptime) \${e:-timed out}; fi; sleep 0.2; done" >/dev/null
  local t_start
  t_start=$(uptime_now)
  eventually 60 "$mode: leaving: the client on c1 is answered through the Service" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n default logs leaveclient 2>/dev/null | grep -c '^ok')\" -ge 10 ]"
  no_failures_since "$mode: leaving: both members up" "$t_start"
  member_deselected "$mode"
  pods_before=$(k c1 -n move get pods -l app=both -o jsonpath='{range .items[*]}{.metadata.uid} {end}')

  # c3 lost without warning.
  t_cut=$(uptime_now)
  "$TESTBED" partition c3 >/dev/null
  eventually 60 "$mode: member lost: c1's gateway reports its tunnel with c3 Lost" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get peering c3 -o jsonpath='{.status.tunnel.state}')\" = Lost ]"
  eventually 60 "$mode: member lost: c3's pods left the Service's ready endpoints" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n move get endpointslices -l kubernetes.io/service-name=both -o json | jq '[.items[].endpoints[]? | select(.nodeName == \"kubectl-fed-c3\" and .conditions.ready == true)] | length')\" = 0 ]"
  t_withdrawn=$(uptime_now)
  expect_eq "$mode: member lost: c3's pods on c1 are not Ready, reason MemberUnreachable" \
    "$(k c1 -n move get pods -l app=both --field-selector spec.nodeName=kubectl-fed-c3 -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason} {end}')" \
    "False/MemberUnreachable False/MemberUnreachable "
  expect_eq "$mode: member lost: c2's endpoints stay ready" "$(ready_endpoints kubectl-fed-c2)" 2
  # kube-proxy applies the withdrawal within its sync period (1 s), a request lasts up to 2 s.
  sleep 6
  no_failures_since "$mode: member lost: once withdrawn, c2's pods answer" \
    "$(awk -v t="$t_withdrawn" 'BEGIN {print t + 3}')"
  echo "# member lost: c3's endpoints withdrawn $(awk -v a="$t_cut" -v b="$t_withdrawn" 'BEGIN {printf "%.1f", b - a}') s after the cut (polled each second); $(client_requests "$t_cut" | awk -v w="$t_withdrawn" '$1 == "fail" && $2 <= w' | wc -l) requests failed until then"
  "$TESTBED" heal c3 >/dev/null
  eventually 90 "$mode: member lost: healed, c3's pods are ready endpoints again" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n move get endpointslices -l kubernetes.io/service-name=both -o json | jq '[.items[].endpoints[]? | select(.nodeName == \"kubectl-fed-c3\" and .conditions.ready == true)] | length')\" = 2 ]"
  expect_eq "$mode: member lost: the same 4 pods, none deleted or made twice" \
    "$(k c1 -n move get pods -l app=both -o jsonpath='{range .items[*]}{.metadata.uid} {end}')" "$pods_before"
  expect_eq "$mode: member lost: c3 still runs its 2 twins" "$(k c3 -n move-c1 get pods -l app=both --no-headers | wc -l)" 2
  eventually 30 "$mode: member lost: c1's tunnel with c3 is Connected again" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get peering c3 -o jsonpath='{.status.tunnel.state}')\" = Connected ]"

  # A budget that allows no disruption stops the unjoin before anything is torn down.
  k c1 -n move create poddisruptionbudget both --selector app=both --min-available 4 >/dev/null
  eventually 30 "$mode: unjoin: the budget counts 4 healthy pods" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n move get pdb both -o jsonpath='{.status.currentHealthy}')\" = 4 ]"
  run blocked unjoin c2 --context c1 --member-context c2 --timeout 8s -o json
  [ "$(cat "$work/blocked.rc")" != 0 ] && grep -q "disruption budget both needs 4 healthy pods" "$work/blocked.err" \
    && grep -q "stopped before anything was torn down" "$work/blocked.err" \
    && pass "$mode: unjoin: a budget that allows no eviction stops it (exit $(cat "$work/blocked.rc")): $(cut -c1-160 "$work/blocked.err")" \
    || fail "$mode: unjoin with a blocking budget: rc $(cat "$work/blocked.rc"): $(cat "$work/blocked.err")"
  expect_eq "$mode: unjoin: refused, c2 is still a member, its virtual node schedulable, its pods in place" \
    "$(k c1 get federatedcluster c2 -o name) $(k c1 get node kubectl-fed-c2 -o jsonpath='{.spec.unschedulable}') $(ready_endpoints kubectl-fed-c2)" \
    "federatedcluster.fed.kubectl-fed.io/c2  2"
  k c1 -n move delete pdb both >/dev/null

  # A graceful unjoin: c2's pods move to c3 before c2's data path goes.
  local t_unjoin
  t_unjoin=$(uptime_now)
  ok_run unjoin2a unjoin c2 --context c1 --member-context c2 -o json
  expect_eq "$mode: unjoin: c2's 2 pods were moved off first" \
    "$(jq -r '"\(.workload.mode) \(.workload.evicted | length)"' "$work/unjoin2a.out")" "graceful 2"
  expect_eq "$mode: unjoin: the 4 ready endpoints are on c3" "$(ready_endpoints kubectl-fed-c3)" 4
  sleep 3
  no_failures_since "$mode: unjoin c2 under traffic" "$t_unjoin"

  # A graceful unoffload: the pods come home to c1 before the replicas go.
  local t_unoffload
  t_unoffload=$(uptime_now)
  ok_run unoffmove unoffload namespace move --context c1 --wait --timeout 2m -o json
  expect_eq "$mode: unoffload: the 4 pods came home first" \
    "$(jq -r '"\(.pods.mode) \(.pods.evicted | length)"' "$work/unoffmove.out")" "graceful 4"
  expect_eq "$mode: unoffload: the 4 ready endpoints are on c1's own nodes" \
    "$(k c1 -n move get endpointslices -l kubernetes.io/service-name=both -o json | jq '[.items[].endpoints[]? | select(.conditions.ready == true and (.nodeName | startswith("node")))] | length')" 4
  sleep 3
  no_failures_since "$mode: unoffload under traffic" "$t_unoffload"
  k c1 -n default delete pod leaveclient --now >/dev/null
  k c1 delete namespace move --wait=false >/dev/null
}
