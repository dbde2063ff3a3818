#!/usr/bin/env bash
# Acceptance 5: --kubelet kwok --nodes 50 gives 50 Ready nodes, and a Deployment's pods are
# scheduled and marked Running on them. Runs on its own testbed after the shared one is down.
. "$(dirname "$0")/../lib.sh"
trap '"$TESTBED" down >/dev/null 2>&1 || true' EXIT
"$TESTBED" up --clusters 1 --nodes 50 --kubelet kwok
eventually 120 "50 kwok nodes are Ready" bash -c "[ \$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}' | grep -c True) -eq 50 ]"
k c1 create deployment scale --image fed.local/busybox:1 --replicas 100 -- sleep 3600 >/dev/null
eventually 180 "100 pods of a Deployment are Running on kwok nodes" \
  bash -c "[ \$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get pods -l app=scale --field-selector=status.phase=Running -o name | wc -l) -eq 100 ]"
spread=$(k c1 get pods -l app=scale -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u | wc -l)
[ "$spread" -gt 10 ] && pass "pods spread over $spread kwok nodes" || fail "pods on only $spread nodes"
"$TESTBED" down
expect_eq "nothing left after the kwok testbed" "$("$TESTBED" leftovers)" ""
finish
