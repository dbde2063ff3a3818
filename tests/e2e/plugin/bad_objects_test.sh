#!/usr/bin/env bash
# Malformed objects written straight to the API, bypassing kubectl-fed (docs/SECURITY.md, "Bad
# input end to end"), on the demo's host c1 with its managers running: each is refused by the
# CRD's schema or an admission policy with a message naming the field, or — the one the
# schema cannot judge, an offloaded namespace whose replica name would be too long — the
# manager says so in a condition and an Event, once, and keeps serving every other object.
source "$(dirname "$0")/../lib.sh"
work=$(mktemp -d)
long=n$(printf 'x%.0s' $(seq 61))  # 62 characters: a valid namespace, too long for a replica
cleanup() {
  local rc=$?
  k c1 delete ns "$long" e2e-bad-objects-ok --ignore-not-found --wait=false >/dev/null 2>&1 || true
  rm -rf "$work"
  [ "$rc" = 0 ] || failure_summary
}
trap cleanup EXIT

# refused WHAT PATTERN: the last apply must have failed, its error matching PATTERN.
refused() {
  if [ "$(cat "$work/rc")" != 0 ] && grep -Eq "$2" "$work/err"; then
    pass "$1: $(grep -Eo "$2" "$work/err" | head -1)"
  else
    fail "$1: exit $(cat "$work/rc"), $(head -c 400 "$work/err")"
  fi
}
apply() { set +e; k c1 "$@" >/dev/null 2>"$work/err"; echo $? >"$work/rc"; set -e; }
apply_yaml() { apply apply -f - <<<"$1"; }

peering() {  # a Peering valid but for what "$1" (YAML lines) overrides
  cat <<YAML
apiVersion: fed.kubectl-fed.io/v1alpha1
kind: Peering
metadata: {name: e2e-bad}
spec:
  localClusterID: c1
  peerClusterID: c9
  peerExternalCIDR: 10.250.0.0/16
$1
YAML
}
apply_yaml "$(peering '  peerPodCIDR: 10.0.0.0/33')"
refused "a Peering with a /33 PodCIDR" 'spec.peerPodCIDR[^"]*'
apply_yaml "$(peering $'  peerPodCIDR: 10.9.0.0/16\n  publicKey: not-a-key')"
refused "a Peering with a garbage WireGuard key" 'spec.publicKey[^"]*'
apply_yaml "apiVersion: fed.kubectl-fed.io/v1alpha1
kind: FederatedCluster
metadata: {name: c9}
spec:
  clusterID: C_9
  apiEndpoint: https://192.0.2.1:6443
  credentialSecretRef: {name: member-c9, namespace: kubectl-fed-system}"
refused "a FederatedCluster whose id is no DNS label" 'spec.clusterID[^"]*'
apply_yaml "apiVersion: fed.kubectl-fed.io/v1alpha1
kind: FeatureConfig
metadata: {name: e2e-bad}
spec:
  kubelet: {maxPods: 90, maxPodz: 5}"
refused "a FeatureConfig with an unknown kubelet field" 'spec.kubelet: fields outside the allow-list of kubectl-fed: maxPodz'
expect_eq "none of them was stored" \
  "$(k c1 get peering/e2e-bad featureconfig/e2e-bad federatedcluster/c9 --ignore-not-found -o name | wc -l)" 0

# The IPAM's records: the manager's alone.
before=$(k c1 get ipamstate ipam -o jsonpath='{.metadata.resourceVersion}')
apply patch ipamstate ipam --type merge -p '{"spec":{"externalCIDR":"10.0.0.0/8"}}'
refused "an IpamState edited by hand" 'written by the federation manager only[^"]*'
apply_yaml "apiVersion: fed.kubectl-fed.io/v1alpha1
kind: IpamBlock
metadata: {name: 10-0-0-0-28}
spec: {cidr: 10.0.0.0/28}"
refused "an IpamBlock made by hand" 'written by the federation manager only'
expect_eq "the IpamState is unchanged" "$(k c1 get ipamstate ipam -o jsonpath='{.metadata.resourceVersion}')" "$before"

# A NamespaceOffloading the schema cannot judge: under DefaultName its replica namespace would
# be "<namespace>-<host id>", past 63 characters. The manager refuses it in its status and an
# Event, and serves another namespace's offloading meanwhile.
manager_restarts() { k c1 -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-manager -o json | jq -r '.items[] | "\(.metadata.name) \(.status.containerStatuses[0].restartCount)"'; }
restarts=$(manager_restarts)
k c1 create ns "$long" >/dev/null
k c1 create ns e2e-bad-objects-ok >/dev/null
for ns in "$long" e2e-bad-objects-ok; do
  k c1 apply -f - >/dev/null <<YAML
apiVersion: fed.kubectl-fed.io/v1alpha1
kind: NamespaceOffloading
metadata: {name: offloading, namespace: $ns}
spec: {namespaceMappingStrategy: DefaultName}
YAML
done
eventually 30 "the offloading of a 62-character namespace is refused in its status (SpecRefused)" \
  bash -c "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n $long get namespaceoffloading offloading -o jsonpath='{.status.conditions[?(@.type==\"Accepted\")].reason}')\" = SpecRefused ]"
message=$(k c1 -n "$long" get namespaceoffloading offloading -o jsonpath='{.status.conditions[?(@.type=="Accepted")].message}')
[[ $message == *63* ]] && pass "its condition says why: $message" || fail "the refusal does not name the limit: $message"
eventually 30 "the manager serves the other namespace's offloading (observed, not refused)" \
  bash -c "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n e2e-bad-objects-ok get namespaceoffloading offloading -o jsonpath='{.status.observedGeneration}/{.status.conditions[?(@.type==\"Accepted\")].reason}')\" = 1/ ]"
sleep 10  # what a retry storm would fill
events=$(k c1 -n "$long" get events --field-selector reason=SpecRefused -o json | jq '[.items[].count // 1] | add // 0')
[ "$events" -ge 1 ] && [ "$events" -le 3 ] && pass "one SpecRefused Event, not a storm ($events in the namespace)" ||
  fail "SpecRefused Events in $long: $events (want 1 to 3)"
# A manager that restarted must have done so for a reason of its own: on this 2-core machine a
# leader can miss its renew deadline and exit by design (docs/HA.md), which says so as its last
# words; anything else — a crash — is what this test is for.
crashed=""
while read -r pod count; do
  was=$(awk -v p="$pod" '$1 == p {print $2}' <<<"$restarts")
  [ "$count" = "${was:-0}" ] && continue
  last=$(k c1 -n kubectl-fed-system logs "$pod" --previous --tail 3 2>&1 | cut -c1-300)
  if grep -q "leadership lost" <<<"$last"; then
    echo "note: $pod restarted after losing its leadership (not a crash): $(tail -1 <<<"$last")"
  else
    crashed+="$pod: $last; "
  fi
done <<<"$(manager_restarts)"
[ -z "$crashed" ] && pass "no manager crashed meanwhile" || fail "a manager crashed meanwhile: $crashed"
finish
