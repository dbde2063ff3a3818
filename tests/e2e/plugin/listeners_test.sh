#!/usr/bin/env bash
# The listening sockets of kubectl-fed's processes on a host cluster (docs/SECURITY.md,
# "Listening sockets"), on the shared testbed after the demo, which leaves c1 a federation host
# (managers, node agents). Every TCP socket a fed-agent process listens on is enumerated from
# its own network namespace and must be one the inventory names; then each is called without
# credentials: health answers its probes and serves no /metrics, /metrics refuses a caller
# without a token (401) and one whose user may not read it (403) and serves a ServiceAccount
# bound to kubectl-fed:metrics-reader, as a cluster's Prometheus would be; the virtual kubelet
# refuses a TLS client without a certificate. The webhook port is listed and must be TLS-only.
# Then `init --webhook-caller-auth` (the testbed's API servers present their front-proxy
# certificate to kubectl-fed-system's webhooks, as an administrator sets it up): the pod webhook
# refuses a caller without a certificate, with one of another CA, and one of the front-proxy CA
# whose name is not allowed; the API server's own call still mutates a pod of an offloaded
# namespace; init without the flag turns it off again. Then the members' webhooks with the flag
# (member_webhook_callers_checks.sh).
source "$(dirname "$0")/../lib.sh"
FED=${KUBECTL_FED:-${FED_BINARY_DIR:?}/plugin/kubectl-fed}
work=$(mktemp -d)
cleanup() {
  local rc=$?
  # c1 as the demo left it, whatever happened.
  [ -f "$work/caller-auth-on" ] && "$FED" init --context c1 >/dev/null 2>&1 || true
  [ -f "$work/member-callers" ] && member_webhook_callers_undo
  "$FED" unoffload namespace e2e-callers --context c1 >/dev/null 2>&1 || true
  k c1 delete namespace e2e-callers --ignore-not-found --wait=false >/dev/null 2>&1 || true
  k c1 delete clusterrolebinding e2e-listeners-prometheus --ignore-not-found >/dev/null 2>&1 || true
  k c1 -n default delete sa e2e-prometheus e2e-nobody --ignore-not-found >/dev/null 2>&1 || true
  rm -rf "$work"
  [ "$rc" = 0 ] || failure_summary
}
trap cleanup EXIT
# shellcheck source=member_webhook_callers_checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/member_webhook_callers_checks.sh"

role_of() { tr '\0' ' ' <"/proc/$1/cmdline" | awk '{print $2}'; }
# "ADDRESS:PORT" of each TCP socket process $1 listens on, seen from its network namespace.
listening() { nsenter -t "$1" -n ss -ltnpH | awk -v p="pid=$1," 'index($0, p) {print $4}' | sort -u; }
in_netns() { local p=$1; shift; nsenter -t "$p" -n "$@"; }

pids=$(fed_agent_pids any cgroup=fedtb-c1-node)  # c1's nodes and pods: their cgroups name the node
[ -n "$pids" ] || fail "no fed-agent process of c1 found (is the demo's federation still up?)"
roles=$(for p in $pids; do role_of "$p"; done | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')
pass "c1 runs fed-agent processes: $roles"

k c1 -n default create sa e2e-prometheus >/dev/null
k c1 -n default create sa e2e-nobody >/dev/null
k c1 create clusterrolebinding e2e-listeners-prometheus --clusterrole kubectl-fed:metrics-reader \
  --serviceaccount default:e2e-prometheus >/dev/null
allowed=$(k c1 -n default create token e2e-prometheus --duration 10m)
nobody=$(k c1 -n default create token e2e-nobody --duration 10m)

# status of an HTTP(S) GET from inside the process's namespace; 000 when no answer came.
code() { local p=$1; shift; in_netns "$p" curl -sk -o "$work/body" -w '%{http_code}' --max-time 10 "$@" || true; }

sockets=0
for p in $pids; do
  role=$(role_of "$p")
  for address in $(listening "$p"); do
    sockets=$((sockets + 1))
    port=${address##*:}
    case $role:$port in
      *:9440)
        expect_eq "$role (pid $p) $address: health answers its probe" "$(code "$p" "http://127.0.0.1:$port/healthz")" 200
        expect_eq "$role (pid $p) $address: health serves no /metrics" "$(code "$p" "http://127.0.0.1:$port/metrics")" 404 ;;
      *:9441)
        expect_eq "$role (pid $p) $address: /metrics is not served in plain HTTP" "$(code "$p" "http://127.0.0.1:$port/metrics")" 000
        expect_eq "$role (pid $p) $address: /metrics without a token: 401" "$(code "$p" "https://127.0.0.1:$port/metrics")" 401
        expect_eq "$role (pid $p) $address: /metrics with a forged token: 401" \
          "$(code "$p" -H 'Authorization: Bearer forged' "https://127.0.0.1:$port/metrics")" 401
        expect_eq "$role (pid $p) $address: /metrics for a user without the right: 403" \
          "$(code "$p" -H "Authorization: Bearer $nobody" "https://127.0.0.1:$port/metrics")" 403
        expect_eq "$role (pid $p) $address: the metrics reader scrapes /metrics" \
          "$(code "$p" -H "Authorization: Bearer $allowed" "https://127.0.0.1:$port/metrics")" 200
        grep -q "^fed_build_info{.*role=\"$role\"} 1$" "$work/body" && pass "$role (pid $p): the scrape holds fed_build_info of role $role" ||
          fail "$role (pid $p): no fed_build_info in the scrape: $(head -c 300 "$work/body")" ;;
      manager:10250)
        # The handshake asks for a certificate the API server's client CA signed: no answer.
        expect_eq "manager (pid $p) $address: the virtual kubelet refuses a client without a certificate" \
          "$(code "$p" "https://127.0.0.1:$port/containerLogs/default/x/y")" 000 ;;
      manager:9443)
        expect_eq "manager (pid $p) $address: the pod webhook speaks TLS only" "$(code "$p" "http://127.0.0.1:$port/mutate-pods")" 000 ;;
      *)
        fail "$role (pid $p) listens on $address, which the inventory (docs/SECURITY.md) does not name" ;;
    esac
  done
done
[ "$sockets" -ge 4 ] && pass "$sockets listening sockets checked" || fail "only $sockets listening sockets found"

# --- Webhook callers (docs/SECURITY.md, "Webhook callers") ---
export KUBECONFIG=$("$TESTBED" kubeconfig c1)
pki=${FED_TESTBED_DIR:-/var/lib/fedtb}/c1/pki
# rolled_out: the managers' rollout done and the old pods gone (their processes with them).
rolled_out() {
  k c1 -n kubectl-fed-system rollout status deployment fed-manager --timeout 3m >/dev/null
  local want; want=$(k c1 -n kubectl-fed-system get deployment fed-manager -o jsonpath='{.spec.replicas}')
  local deadline=$((SECONDS + 120))
  until [ "$(k c1 -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-manager --no-headers | wc -l)" = "$want" ]; do
    [ $SECONDS -lt $deadline ] || fail "the old manager pods were not gone within 120s"
    sleep 1
  done
}
touch "$work/caller-auth-on"
"$FED" init --context c1 --webhook-caller-auth >/dev/null
rolled_out
managers=$(k c1 -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-manager -o json |
  jq -r '.items[] | select(.metadata.deletionTimestamp == null) | .spec.containers[0].args | index("--webhook-caller-auth") != null' | sort -u)
expect_eq "init --webhook-caller-auth: every manager pod runs with the flag" "$managers" true
# A caller of the front-proxy CA with a name requestheader-allowed-names does not list, and a
# client certificate of the cluster's own CA (an admin's), for the refusals below.
intruder_cert c1
review='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"e2e","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"e2e-callers","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","namespace":"e2e-callers"},"spec":{"containers":[{"name":"c","image":"i"}]}}}}'
# The webhook runs on the leading manager only (row 3).
leader_pid() {
  local pod
  pod=$(k c1 -n kubectl-fed-system get pods -l kubectl-fed.io/manager-leader=true -o jsonpath='{.items[0].metadata.name}')
  [ -n "$pod" ] && fed_agent_pid manager "pod=$pod"
}
url=https://127.0.0.1:9443/mutate-pods
eventually 90 "a manager leads again after the rollout" leader_pid
p=$(leader_pid)
eventually 60 "the leading manager (pid $p) serves the pod webhook, its caller CA loaded" in_netns "$p" \
  curl -sfk -o /dev/null --max-time 5 --cert "$pki/front-proxy-client.crt" --key "$pki/front-proxy-client.key" "$url" -d "$review"
expect_eq "manager (pid $p): the pod webhook refuses a caller without a certificate" \
  "$(code "$p" -H 'Content-Type: application/json' -d "$review" "$url")" 000
expect_eq "manager (pid $p): ... and one with a certificate of the cluster's CA (an admin's)" \
  "$(code "$p" --cert "$pki/admin.crt" --key "$pki/admin.key" -H 'Content-Type: application/json' -d "$review" "$url")" 000
expect_eq "manager (pid $p): ... and one of the front-proxy CA whose name is not allowed: 403" \
  "$(code "$p" --cert "$work/intruder-c1.crt" --key "$work/intruder-c1.key" -H 'Content-Type: application/json' -d "$review" "$url")" 403
expect_eq "manager (pid $p): the front-proxy client certificate is answered" \
  "$(code "$p" --cert "$pki/front-proxy-client.crt" --key "$pki/front-proxy-client.key" -H 'Content-Type: application/json' -d "$review" "$url")" 200
# The API server's own call: a pod of a namespace offloaded with strategy Local (the demo left
# no member), created as a server dry run, comes back with the webhook's affinity away from
# virtual nodes (failurePolicy Fail: were the call refused, the create would fail). Retried
# while the webhook configuration takes the namespace in.
k c1 create namespace e2e-callers >/dev/null
"$FED" offload namespace e2e-callers --context c1 --pod-offloading-strategy Local >/dev/null 2>&1
mutated() {
  k c1 -n e2e-callers run e2e-caller --image fed.local/busybox:1 --restart Never --dry-run=server -o json \
    >"$work/dry-run.json" 2>"$work/dry-run.err" &&
    jq -e '.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchExpressions[] |
      select(.key == "kubectl-fed.io/type" and .operator == "NotIn")' "$work/dry-run.json" >/dev/null
}
deadline=$((SECONDS + 60))
until mutated; do
  [ $SECONDS -lt $deadline ] || fail "a pod of e2e-callers is not mutated through the authenticated webhook call: $(cat "$work/dry-run.err")"
  sleep 1
done
pass "the API server's call, with its front-proxy certificate, is answered: the pod is mutated"
"$FED" init --context c1 >/dev/null
rolled_out
rm -f "$work/caller-auth-on"
eventually 90 "a manager leads again after the second rollout" leader_pid
p=$(leader_pid)
eventually 60 "init without --webhook-caller-auth turns it off again: a caller without a certificate is answered" \
  in_netns "$p" curl -sfk -o /dev/null --max-time 5 https://127.0.0.1:9443/mutate-pods -d "$review"
member_webhook_callers
finish
