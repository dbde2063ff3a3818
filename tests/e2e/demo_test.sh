#!/usr/bin/env bash
# README's first command, scripts/demo, run as written on the shared testbed after the other
# tests of that session (it joins the session: `testbed up` is idempotent), so that the demo
# cannot rot: every step must succeed — init, two joins with --wait, offload, a Deployment whose
# pods answer through one Service from all three clusters, the eu members' kubelets reconfigured with
# --drain under traffic, replication per region, PodPreset on the members, and everything taken
# back down.
source "$(dirname "$0")/lib.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if "$REPO/scripts/demo" >"$out" 2>&1; then
  pass "scripts/demo ran every step ($(grep -c '^\$ ' "$out") commands)"
else
  tail -n 80 "$out"
  fail "scripts/demo stopped: $(grep -m1 '^demo: \|^error: ' "$out" || tail -n 1 "$out")"
fi
# The Service's answers, tallied by the demo per cluster ("  12 c2").
for c in c1 c2 c3; do
  grep -Eq "^ +[0-9]+ $c\$" "$out" && pass "a backend on $c answered through the Service: $(grep -E "^ +[0-9]+ $c\$" "$out" | tr -s ' ')" ||
    fail "no answer from $c in the demo's tally: $(grep -E '^ +[0-9]+ ' "$out" | tr '\n' ';')"
done
line=$(grep -m1 '^requests during the rollout: ' "$out" || true)
[[ $line =~ :\ ([0-9]+)\ answered,\ 0\ failed ]] && pass "reconfigure --drain on c2: $line" ||
  fail "the reconfigure step's traffic: ${line:-no tally}"
grep -q 'hello from a PodPreset' "$out" && pass "the PodPreset's env reached a pod on c2" || fail "no PodPreset env in the demo's output"
grep -q -- '--member-api-endpoint\|--gateway-address\|--kubelet-\|--restart-command' <(grep '^\$ ' "$out") &&
  fail "the demo used a testbed-only flag: $(grep '^\$ ' "$out" | grep -- '--member-api-endpoint\|--gateway-address\|--kubelet-\|--restart-command')" ||
  pass "no command of the demo names an endpoint, gateway address or kubelet path"
finish
