# shellcheck shell=bash
# The members' webhooks with --webhook-caller-auth (docs/SECURITY.md, "Webhook callers"), sourced
# by listeners_test.sh after the manager's pod webhook: c2 joins with the flag (the demo left it
# unjoined) and gets PodPreset with it. Each webhook — the tenancy role's namespace check and the
# PodPreset role's pod mutation — refuses a caller without a certificate, answers 403 to one of
# the front-proxy CA whose name is not allowed and 200 to the front-proxy client; the API
# server's own calls pass (failurePolicy Fail: a refused call would fail the write): the replica
# of an offloaded namespace is created on c2, and a pod there gets its preset's env. Undone by
# listeners_test.sh's cleanup (member_webhook_callers_undo).

# fed ARGS...: kubectl-fed with the contexts of c1 and c2 (listeners_test.sh exports c1's alone).
fed() { KUBECONFIG="$("$TESTBED" kubeconfig c1):$("$TESTBED" kubeconfig c2)" "$FED" "$@"; }

# intruder_cert CLUSTER: a client certificate of CLUSTER's front-proxy CA named "intruder",
# which its requestheader-allowed-names does not list: $work/intruder-CLUSTER.{crt,key}.
intruder_cert() {
  local c=$1 pki=${FED_TESTBED_DIR:-/var/lib/fedtb}/$1/pki
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/intruder-$c.key" 2>/dev/null
  openssl req -new -key "$work/intruder-$c.key" -subj /CN=intruder -out "$work/intruder-$c.csr" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >"$work/intruder.ext"
  openssl x509 -req -in "$work/intruder-$c.csr" -CA "$pki/front-proxy-ca.crt" -CAkey "$pki/front-proxy-ca.key" \
    -CAcreateserial -CAserial "$work/ca-$c.srl" -days 1 -extfile "$work/intruder.ext" -out "$work/intruder-$c.crt" 2>/dev/null
}

# callers_refused CLUSTER ROLE URL REVIEW: the ROLE process of CLUSTER (its only pod) refuses a
# caller without a certificate and an intruder (403), and answers the front-proxy client (200).
callers_refused() {
  local c=$1 role=$2 url=$3 review=$4 pki=${FED_TESTBED_DIR:-/var/lib/fedtb}/$1/pki p
  p=$(fed_agent_pid "$role" "cgroup=fedtb-$c-node") || fail "no $role process of $c"
  eventually 60 "$c's $role (pid $p) serves its webhook to the front-proxy client" in_netns "$p" \
    curl -sfk -o /dev/null --max-time 5 --cert "$pki/front-proxy-client.crt" --key "$pki/front-proxy-client.key" \
    -H 'Content-Type: application/json' -d "$review" "$url"
  expect_eq "$c's $role (pid $p): refuses a caller without a certificate" \
    "$(code "$p" -H 'Content-Type: application/json' -d "$review" "$url")" 000
  expect_eq "$c's $role (pid $p): ... and one of the front-proxy CA whose name is not allowed: 403" \
    "$(code "$p" --cert "$work/intruder-$c.crt" --key "$work/intruder-$c.key" -H 'Content-Type: application/json' -d "$review" "$url")" 403
}

# only_pod_has_flag CLUSTER NAME: every pod of Deployment NAME in kubectl-fed-system runs with
# --webhook-caller-auth, and no other is left (a rollout's old pod would hold the port's twin).
only_pod_has_flag() {
  [ "$(k "$1" -n kubectl-fed-system get pods -l "app.kubernetes.io/name=$2" -o json |
    jq -r '[.items[] | .spec.containers[0].args | index("--webhook-caller-auth") != null] | "\(length) \(all)"')" = "1 true" ]
}

member_webhook_callers() {
  touch "$work/member-callers"
  intruder_cert c2
  fed join c2 --context c1 --member-context c2 --webhook-caller-auth --wait --timeout 3m \
    >/dev/null 2>"$work/join.err" || fail "join c2 --webhook-caller-auth: $(cat "$work/join.err")"
  pass "join c2 --webhook-caller-auth --wait"
  eventually 120 "c2's tenancy role runs one pod, with --webhook-caller-auth" only_pod_has_flag c2 fed-tenancy
  local ns_review='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"e2e","kind":{"group":"","version":"v1","kind":"Namespace"},"resource":{"group":"","version":"v1","resource":"namespaces"},"name":"x","operation":"CREATE","userInfo":{"username":"nobody"},"object":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}}}'
  callers_refused c2 tenancy https://127.0.0.1:9443/validate-namespaces "$ns_review"
  # The API server's call: the replica of a namespace offloaded to c2 is created there by the
  # federation's identity, which the tenancy webhook validates.
  k c1 create namespace e2e-tenancy >/dev/null
  fed offload namespace e2e-tenancy --context c1 --pod-offloading-strategy Remote --wait --timeout 2m \
    >/dev/null 2>"$work/offload.err" || fail "offload e2e-tenancy to c2: $(cat "$work/offload.err")"
  expect_eq "c2's API server called the tenancy webhook with its certificate: the replica e2e-tenancy-c1 exists" \
    "$(k c2 get namespace e2e-tenancy-c1 -o name)" namespace/e2e-tenancy-c1

  fed reconfigure --context c1 --clusters all --set podPreset=true --webhook-caller-auth \
    >/dev/null 2>"$work/preset.err" || fail "reconfigure podPreset=true --webhook-caller-auth: $(cat "$work/preset.err")"
  eventually 120 "c2's PodPreset role runs one pod, with --webhook-caller-auth" only_pod_has_flag c2 fed-podpreset
  local pod_review='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"e2e","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"default","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","namespace":"default"},"spec":{"containers":[{"name":"c","image":"i"}]}}}}'
  callers_refused c2 podpreset https://127.0.0.1:9443/mutate-pods "$pod_review"
  k c2 -n default apply -f - >/dev/null <<'YAML'
apiVersion: settings.kubectl-fed.io/v1alpha1
kind: PodPreset
metadata: {name: e2e-callers}
spec:
  selector: {matchLabels: {preset: e2e-callers}}
  env: [{name: GREETING, value: through an authenticated call}]
YAML
  local deadline=$((SECONDS + 60))
  until k c2 -n default run e2e-preset --image fed.local/busybox:1 --restart Never --labels preset=e2e-callers \
    --dry-run=server -o json 2>"$work/preset-pod.err" | jq -e '.spec.containers[0].env[]? | select(.value == "through an authenticated call")' >/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "a pod on c2 does not get its preset through the authenticated call: $(cat "$work/preset-pod.err")"
    sleep 1
  done
  pass "c2's API server called the PodPreset webhook with its certificate: the pod got the preset's env"
  member_webhook_callers_undo
  rm -f "$work/member-callers"
}

# member_webhook_callers_undo: the testbed as the demo left it (c2 not a member, no preset).
member_webhook_callers_undo() {
  k c2 -n default delete podpreset e2e-callers --ignore-not-found >/dev/null 2>&1 || true
  fed reconfigure --context c1 --clusters all --set podPreset=false >/dev/null 2>&1 || true
  fed unoffload namespace e2e-tenancy --context c1 --wait >/dev/null 2>&1 || true
  k c1 delete namespace e2e-tenancy --ignore-not-found --wait=false >/dev/null 2>&1 || true
  fed unjoin c2 --context c1 --member-context c2 >/dev/null 2>&1 || true
}
