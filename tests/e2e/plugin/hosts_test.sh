#!/usr/bin/env bash
# Several host clusters, one federation (docs/HA.md), on a testbed of its own (three clusters of
# one node): `init` on c1, `host add c2` and `host add c3` — each host's federation etcd member
# joins as a learner and is promoted by the leading manager, each host's managers stand by —
# `host list` and `status` show them; bad input is refused with nothing written; c3 is removed
# (its member leaves, kubectl-fed is deleted from it) and added again. Then the
# leader's host c1 loses power (every process SIGKILLed at once): a manager of c2 or c3 leads,
# publishes itself there with the next epoch, and the time it took is printed.
source "$(dirname "$0")/../lib.sh"
FED=${KUBECTL_FED:-${FED_BINARY_DIR:?}/plugin/kubectl-fed}
AGENT=${FED_BINARY_DIR:?}/agent/fed-agent
[ -x "$FED" ] && [ -x "$AGENT" ] || fail "kubectl-fed and fed-agent must be built ($FED_BINARY_DIR)"
work=$(mktemp -d)
on_exit() {
  local rc=$?
  if [ "$rc" != 0 ]; then
    for c in c1 c2 c3; do
      echo "--- $c: kubectl-fed-system"
      k "$c" -n kubectl-fed-system get pods -o wide 2>&1 | tail -n 8
      k "$c" -n kubectl-fed-system logs deploy/fed-etcd --tail 5 2>&1 | cut -c1-300
    done
  fi
  "$TESTBED" down >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap on_exit EXIT

run() {
  local name=$1; shift
  set +e; "$FED" "$@" >"$work/$name.out" 2>"$work/$name.err"; echo $? >"$work/$name.rc"; set -e
}
ok_run() { run "$@"; [ "$(cat "$work/$1.rc")" = 0 ] || fail "kubectl fed ${*:2}: $(cat "$work/$1.err")"; }
rc() { cat "$work/$1.rc"; }
leader_of() { k "$1" -n kubectl-fed-system get cm fed-leader -o jsonpath='{.data.host} {.data.epoch}' 2>/dev/null; }

"$TESTBED" up --clusters 3 --nodes 1 >/dev/null
"$TESTBED" image fed.local/fed-agent:dev "$AGENT" >/dev/null
export KUBECONFIG="$("$TESTBED" kubeconfig c1):$("$TESTBED" kubeconfig c2):$("$TESTBED" kubeconfig c3)"

ok_run init init --context c1 --gateway-address 172.31.0.1
eventually 120 "c1's manager leads (fed-leader names host c1)" bash -c \
  "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n kubectl-fed-system get cm fed-leader -o jsonpath='{.data.host}')\" = c1 ]"
eventually 60 "c1's own FederationHost is a voting member" bash -c \
  "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get federationhost c1 -o jsonpath='{.status.phase}/{.status.conditions[?(@.type==\"Ready\")].status}')\" = Member/True ]"

# Bad input: nothing written.
run same host add c9 --context c1 --host-context c1
expect_eq "host add of the first host's own cluster: exit code" "$(rc same)" 2
grep -q "same cluster" "$work/same.err" && pass "the error says it is the same cluster" || fail "$(cat "$work/same.err")"
sed 's#server: https://127.0.0.1:[0-9]*#server: https://127.0.0.1:1#' "$("$TESTBED" kubeconfig c2)" >"$work/dead.kubeconfig"
run dead host add c2 --context c1 --host-kubeconfig "$work/dead.kubeconfig"
expect_eq "host add of an unreachable cluster: exit code" "$(rc dead)" 3
run badname host add C_2 --context c1 --host-context c2
expect_eq "host add with a bad NAME: exit code" "$(rc badname)" 2
expect_eq "the refused adds wrote nothing" "$(k c1 get federationhosts -o name | tr '\n' ' ')$(k c2 get ns kubectl-fed-system -o name --ignore-not-found)" "federationhost.fed.kubectl-fed.io/c1 "

ok_run add2 host add c2 --context c1 --host-context c2 --gateway-address 172.31.0.2 -o json
expect_eq "host add c2: result" "$(jq -r '"\(.result) \(.hosts)"' "$work/add2.out")" "added 2"
grep -q "warning: 2 hosts" "$work/add2.err" && pass "two hosts: a warning that they tolerate no more loss than one" || fail "no even-count warning: $(cat "$work/add2.err")"
ok_run add3 host add c3 --context c1 --host-context c3 --gateway-address 172.31.0.3 -o json
expect_eq "host add c3: result" "$(jq -r '"\(.result) \(.hosts)"' "$work/add3.out")" "added 3"
ok_run again host add c3 --context c1 --host-context c3 --gateway-address 172.31.0.3 -o json
expect_eq "host add c3 again" "$(jq -r .result "$work/again.out")" alreadyAdded
ok_run list host list --context c1
expect_eq "host list: three voting members, c1 leads" \
  "$(awk 'NR > 1 {print $1, $2, $3, $6}' "$work/list.out" | sort | tr '\n' ';')" \
  "c1 leader Member True;c2 follower Member True;c3 follower Member True;"
for c in c2 c3; do
  k "$c" -n kubectl-fed-system rollout status deploy/fed-manager --timeout=120s >/dev/null
  expect_eq "$c's managers stand by: 2 Ready, none labelled leader" \
    "$(k "$c" -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-manager -o json | jq -r '[.items[] | select(.status.conditions[]? | select(.type == "Ready" and .status == "True"))] | length'),$(k "$c" -n kubectl-fed-system get pods -l kubectl-fed.io/manager-leader=true -o name | wc -l)" "2,0"
  expect_eq "$c's federation ConfigMap: a host of federation c1" \
    "$(k "$c" -n kubectl-fed-system get cm federation -o jsonpath='{.data.role} {.data.federationID}')" "host c1"
done

# host remove: refused for the leader's host and an unknown one; c3 removed with its member
# and every object of kubectl-fed on it; then added again as a new member.
run rmleader host remove c1 --context c1
expect_eq "host remove of the leader's host: exit code" "$(rc rmleader)" 2
run rmnone host remove c9 --context c1
[ "$(rc rmnone)" != 0 ] && grep -q "no host c9" "$work/rmnone.err" && pass "host remove of an unknown host is refused: $(head -1 "$work/rmnone.err")" || fail "host remove c9: rc $(rc rmnone): $(cat "$work/rmnone.err")"
ok_run rm3 host remove c3 --context c1 --host-context c3 -o json
expect_eq "host remove c3: result" "$(jq -r '"\(.result) \(.hosts)"' "$work/rm3.out")" "removed 2"
expect_eq "c3's etcd member left: c1 and c2 remain" "$(k c1 get federationhosts -o jsonpath='{.items[*].metadata.name}')" "c1 c2"
expect_eq "nothing of kubectl-fed is left on c3" "$(k c3 get ns,deploy,ds,crd -A -l app.kubernetes.io/part-of=kubectl-fed -o name)" ""
ok_run readd3 host add c3 --context c1 --host-context c3 --gateway-address 172.31.0.3 -o json
expect_eq "c3 added again, a new member with data of its own" "$(jq -r '"\(.result) \(.hosts)"' "$work/readd3.out")" "added 3"
epoch=$(leader_of c1 | cut -d' ' -f2)
# Every host says who leads: the others publish the leader they observe.
for c in c2 c3; do
  eventually 30 "$c's fed-leader names the leader on host c1 (epoch $epoch)" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig $c) -n kubectl-fed-system get cm fed-leader -o jsonpath='{.data.host} {.data.epoch}')\" = 'c1 $epoch' ]"
done
ok_run st2 status --context c2 -o json
expect_eq "status on c2: c2 follows the leader on c1" "$(jq -r '"\(.hosts[0].role) \(.leader.host)"' "$work/st2.out")" "follower c1"

# The leader's host loses power.
start=$(date +%s%N)
"$TESTBED" kill c1 >/dev/null
new=""
for _ in $(seq 1 300); do
  for c in c2 c3; do
    [ "$(leader_of "$c")" = "$c $((epoch + 1))" ] && { new=$c; break 2; }
  done
  sleep 0.1
done
[ -n "$new" ] || fail "no manager of c2 or c3 leads 30 s after c1 was killed: c2 '$(leader_of c2)', c3 '$(leader_of c3)'"
pass "c1 killed: $new's manager leads with epoch $((epoch + 1)), published $(( ($(date +%s%N) - start) / 1000000 )) ms after the SIGKILL (failoverSeconds $(k "$new" -n kubectl-fed-system get cm fed-leader -o jsonpath='{.data.failoverSeconds}'))"
expect_eq "exactly one manager of $new is labelled leader" \
  "$(k "$new" -n kubectl-fed-system get pods -l kubectl-fed.io/manager-leader=true -o name | wc -l)" 1
ok_run st status --context "$new" -o json
expect_eq "status on $new: it leads" "$(jq -r '.hosts[0].role' "$work/st.out")" leader
other=$([ "$new" = c2 ] && echo c3 || echo c2)
eventually 30 "$other's fed-leader names the new leader on $new" bash -c \
  "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig $other) -n kubectl-fed-system get cm fed-leader -o jsonpath='{.data.host} {.data.epoch}')\" = '$new $((epoch + 1))' ]"

"$TESTBED" down >/dev/null
expect_eq "nothing of the testbed is left" "$("$TESTBED" leftovers)" ""
finish
