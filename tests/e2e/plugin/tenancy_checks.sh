# shellcheck shell=bash
# The provider's tenancy on c3 (docs/OFFLOAD.md, tenancy), checked by datapath_test.sh once
# `shop` is offloaded to c3 — joined with --namespace-quota 2 --share-cpu 2 --share-memory 4Gi —
# and a pod of shop/web runs there; sourced, it uses the test's helpers (k, eventually,
# expect_eq, $IMAGE, $TESTBED, $work).

# tenancy MODE: the consumer (c1's federation identity on c3) cannot exceed its namespace
# cap or the replica's quota, cannot touch the provider's objects, and they come back when the
# provider's own admin removes one; the tenancy role writes only in replicas.
tenancy() {
  local mode=$1 fed_sa=system:serviceaccount:kubectl-fed-system:fed-federation
  local tenancy_sa=system:serviceaccount:kubectl-fed-system:fed-tenancy said
  eventually 60 "$mode: c3's tenancy role keeps a ResourceQuota in shop-c1" \
    k c3 -n shop-c1 get resourcequota kubectl-fed-tenant
  expect_eq "$mode: the replica's quota is the offer" \
    "$(k c3 -n shop-c1 get resourcequota kubectl-fed-tenant -o jsonpath='{.spec.hard.requests\.cpu}/{.spec.hard.requests\.memory}')" 2/4Gi
  eventually 30 "$mode: ... a LimitRange and a NetworkPolicy" bash -c \
    "kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get limitrange,networkpolicy kubectl-fed-tenant >/dev/null"
  expect_eq "$mode: the NetworkPolicy admits the same consumer's replicas and what is outside c3's PodCIDR" \
    "$(k c3 -n shop-c1 get networkpolicy kubectl-fed-tenant -o jsonpath='{.spec.ingress[0].from[0].namespaceSelector.matchLabels.kubectl-fed\.io/origin-cluster} {.spec.ingress[0].from[1].ipBlock.except[0]}')" \
    "c1 $(k c3 -n kubectl-fed-system get configmap federation -o jsonpath='{.data.podCIDR}')"
  # The twin ran before the LimitRange existed or after; a new pod gets its default request.
  k c3 -n shop-c1 create -f - --as $fed_sa -o name >"$work/small.out" 2>&1 <<YAML || fail "$mode: the federation may not create a small pod in shop-c1: $(cat "$work/small.out")"
apiVersion: v1
kind: Pod
metadata: {name: tenancy-small}
spec: {containers: [{name: c, image: $IMAGE, command: [/usr/local/bin/fed-agent, version]}]}
YAML
  expect_eq "$mode: a pod without requests gets the LimitRange's default" \
    "$(k c3 -n shop-c1 get pod tenancy-small -o jsonpath='{.spec.containers[0].resources.requests.cpu}')" 50m
  k c3 -n shop-c1 delete pod tenancy-small --now >/dev/null
  said=$(k c3 -n shop-c1 create -f - --as $fed_sa 2>&1 <<YAML
apiVersion: v1
kind: Pod
metadata: {name: tenancy-big}
spec: {containers: [{name: c, image: $IMAGE, resources: {requests: {cpu: "3"}}}]}
YAML
) && fail "$mode: the federation exceeded the replica's quota: $said"
  grep -q "exceeded quota: kubectl-fed-tenant" <<<"$said" \
    && pass "$mode: a pod over the quota is refused: $(cut -c1-110 <<<"$said")" || fail "$mode: unexpected: $said"
  expect_eq "$mode: the federation may not delete the quota" \
    "$(k c3 auth can-i delete resourcequotas -n shop-c1 --as $fed_sa || true)" no
  expect_eq "$mode: the federation may not change the NetworkPolicy" \
    "$(k c3 auth can-i update networkpolicies -n shop-c1 --as $fed_sa || true)" no
  local uid
  uid=$(k c3 -n shop-c1 get resourcequota kubectl-fed-tenant -o jsonpath='{.metadata.uid}')
  k c3 -n shop-c1 delete resourcequota kubectl-fed-tenant >/dev/null
  eventually 60 "$mode: the quota deleted by c3's admin is put back" bash -c \
    "u=\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get resourcequota kubectl-fed-tenant -o jsonpath='{.metadata.uid}') && [ -n \"\$u\" ] && [ \"\$u\" != $uid ]"
  # The namespace cap: shop-c1 is one of c1's 2; a second replica is admitted, a third refused.
  k c3 create namespace tenancy-a --dry-run=client -o json \
    | jq '.metadata.labels["kubectl-fed.io/origin-cluster"] = "c1"' \
    | k c3 create -f - --as $fed_sa -o name >"$work/cap1.out" 2>&1 \
    && pass "$mode: the federation may create a second replica (cap 2)" || fail "$mode: second replica refused: $(cat "$work/cap1.out")"
  said=$(k c3 create namespace tenancy-b --dry-run=client -o json \
    | jq '.metadata.labels["kubectl-fed.io/origin-cluster"] = "c1"' \
    | k c3 create -f - --as $fed_sa 2>&1) && fail "$mode: the federation exceeded its namespace cap"
  grep -q "consumer c1 already holds 2 replica namespace(s)" <<<"$said" \
    && pass "$mode: a third replica is refused by the cap: $(cut -c1-120 <<<"$said")" || fail "$mode: unexpected: $said"
  expect_eq "$mode: the refused replica does not exist" "$(k c3 get namespace tenancy-b -o name --ignore-not-found)" ""
  k c3 delete namespace tenancy-a --as $fed_sa --wait=false >/dev/null 2>&1 || true
  # The tenancy role itself writes only in replicas.
  said=$(k c3 -n default create quota grab --hard=pods=0 --as $tenancy_sa 2>&1) \
    && fail "$mode: the tenancy role wrote a quota in c3's default namespace"
  grep -q "only in the replicas" <<<"$said" \
    && pass "$mode: the tenancy role may not write outside replicas" || fail "$mode: unexpected: $said"
  expect_eq "$mode: the tenancy role may not read pods" "$(k c3 auth can-i list pods -A --as $tenancy_sa || true)" no
}
