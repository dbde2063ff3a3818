# shellcheck shell=bash
# A rolling restart of every host (seed 000, Table 6.4), sourced by hosts_test.sh: c1, c2 and
# c3 lose power and come back one after the other, each back in the federation before the next
# goes, while a loop keeps offloading new namespaces and mapping endpoints through whichever
# host leads. Afterwards every command that exited 0 has its effect in place (the
# NamespaceOffloading on its host, served with replicas on both members where that host leads;
# the EndpointMapping with the address it was given), and no host's IPAM holds an address twice.

# rolling_leader: the host whose own fed-leader says it leads, if any answers.
rolling_leader() {
  local c
  for c in c1 c2 c3; do
    [ "$(k "$c" --request-timeout=2s -n kubectl-fed-system get cm fed-leader \
      -o jsonpath='{.data.role} {.data.host}' 2>/dev/null)" = "leader $c" ] && { echo "$c"; return 0; }
  done
  return 1
}

# rolling_endpoint HOST I: an address of c4's pods as HOST sees them (its remap of c4's
# PodCIDR, or the PodCIDR itself), the I-th one past the first hundred.
rolling_endpoint() {
  local cidr
  cidr=$(k "$1" --request-timeout=5s get ipamstate ipam -o json | jq -r '.spec.clusterSubnets.c4 |
    if (.remotePodCIDR // "None") != "None" and .remotePodCIDR != "" then .remotePodCIDR else .podCIDR end')
  python3 -c 'import ipaddress,sys; print(ipaddress.ip_network(sys.argv[1])[100 + int(sys.argv[2])])' "$cidr" "$2"
}

# rolling_loop LOG STOP: until STOP exists, one namespace offloaded and one endpoint of c4
# mapped for c5 through the leader's host per round. LOG gets "offload I HOST RC" and
# "map I HOST RC ADDRESS" (ADDRESS "-" when not Ready within 30 s, or not applied).
rolling_loop() {
  local log=$1 stop=$2 i=0 lead rc endpoint address t
  while [ ! -e "$stop" ]; do
    lead=$(rolling_leader) || { sleep 1; continue; }
    i=$((i + 1))
    k "$lead" --request-timeout=5s create namespace "roll-$i" >/dev/null 2>&1 || { echo "namespace $i $lead failed" >>"$log"; continue; }
    rc=0
    "$FED" offload namespace "roll-$i" --context "$lead" --wait --timeout 30s -o json \
      >"$work/roll-$i.out" 2>"$work/roll-$i.err" || rc=$?
    echo "offload $i $lead $rc" >>"$log"
    rc=0 address=-
    # (Right after a takeover the new leader may not have c4's networks yet: no endpoint.)
    if endpoint=$(rolling_endpoint "$lead" "$i" 2>/dev/null); then
      printf 'apiVersion: fed.kubectl-fed.io/v1alpha1\nkind: EndpointMapping\nmetadata: {name: roll-%s}\nspec: {clusterID: c5, endpoint: "%s"}\n' \
        "$i" "$endpoint" | k "$lead" --request-timeout=5s apply -f - >/dev/null 2>&1 || rc=$?
    else
      rc=none
    fi
    if [ "$rc" = 0 ]; then
      for t in $(seq 1 30); do
        address=$(k "$lead" --request-timeout=2s get endpointmapping "roll-$i" \
          -o jsonpath='{.status.conditions[?(@.type=="Ready")].status} {.status.address}' 2>/dev/null || true)
        case "$address" in "True "?*) address=${address#True }; break ;; *) address=- ;; esac
        sleep 1
      done
    fi
    echo "map $i $lead $rc $address" >>"$log"
  done
}

# rolling_offloads_done LOG: how many offloads of the loop exited 0 so far.
rolling_offloads_done() { awk '$1 == "offload" && $4 == 0' "$1" | wc -l; }

# rolling_back HOST: HOST's own view says it follows or leads, its etcd member is healthy and
# both of its managers are Ready.
# What it saw last goes to $work/why, which the test prints first if it fails.
rolling_back() {
  local out rc=0
  out=$(timeout 30 "$FED" status --context "$1" -o json 2>&1) || rc=$?
  { echo "$(date +%T) status --context $1 (exit $rc):"; jq -c '.hosts[0]' <<<"$out" 2>/dev/null || echo "$out"
    k "$1" --request-timeout=5s -n kubectl-fed-system get pods --no-headers 2>&1; } >"$work/why"
  [ "$rc" = 0 ] && jq -e '.hosts[0] | (.role == "leader" or .role == "follower") and .etcd.state == "healthy" and .managers.ready == 2' <<<"$out" >/dev/null
}

# rolling_settled: a leader whose status has every host's member healthy.
rolling_settled() {
  local lead
  lead=$(rolling_leader) || return 1
  "$FED" status --context "$lead" -o json 2>/dev/null |
    jq -e '([.hosts[] | .etcd.health] | unique) == ["healthy"] and ([.hosts[]] | length) == 3' >/dev/null
}

rolling_restart_checks() {
  local log=$work/rolling.log stop=$work/rolling.stop loop c lead n epoch_before epoch_after
  : >"$log"
  epoch_before=$(k "$(rolling_leader)" -n kubectl-fed-system get cm fed-leader -o jsonpath='{.data.epoch}')
  rolling_loop "$log" "$stop" &
  loop=$!
  for c in c1 c2 c3; do
    n=$(rolling_offloads_done "$log")
    "$TESTBED" kill "$c" >/dev/null
    sleep 5  # the loop goes on against the two hosts left
    "$TESTBED" start "$c" >/dev/null
    eventually 180 "rolling restart: $c is back (its member healthy, both managers Ready)" rolling_back "$c"
    rm -f "$work/why"
    eventually 60 "rolling restart: a leader, every host's member healthy" rolling_settled
    # Each restart is followed by work through whoever leads then, so the loop's commands
    # interleave with every restart (and the leader they go through changes with them).
    eventually 120 "rolling restart: an offload through the leader exited 0 since $c was killed" \
      bash -c "[ \$(awk '\$1 == \"offload\" && \$4 == 0' '$log' | wc -l) -gt $n ]"
  done
  touch "$stop"
  wait "$loop"
  lead=$(rolling_leader)
  echo "# rolling restart: the loop's rounds (the leader is now on $lead):"
  sed 's/^/#   /' "$log"

  n=$(rolling_offloads_done "$log")
  [ "$n" -ge 3 ] && pass "rolling restart: $n offloads exited 0 during it" || fail "rolling restart: only $n offloads exited 0: $(cat "$log")"
  # Every host is killed once, so the host leading at the start goes down at some point: at
  # least one takeover. (Which host the loop's rounds went through is only sampled once a round,
  # and the leadership may be back on a host by the next sample, so it is not the evidence.)
  epoch_after=$(k "$lead" -n kubectl-fed-system get cm fed-leader -o jsonpath='{.data.epoch}')
  [ "$epoch_after" -gt "$epoch_before" ] &&
    pass "rolling restart: the leadership changed hands (epoch $epoch_before -> $epoch_after); rounds went through $(awk '$1 == "offload" && $4 == 0 {print $3}' "$log" | sort -u | tr '\n' ' ')" ||
    fail "rolling restart: no takeover although every host was killed (epoch $epoch_before -> $epoch_after): $(cat "$log")"
  local i host rc address got missing=""
  while read -r _ i host rc; do
    [ "$rc" = 0 ] || continue
    k "$host" -n "roll-$i" get namespaceoffloading -o name | grep -q . || missing+=" roll-$i@$host"
  done < <(awk '$1 == "offload"' "$log")
  expect_eq "rolling restart: every offloading that exited 0 is on its host" "$missing" ""
  for i in $(awk -v h="$lead" '$1 == "offload" && $3 == h && $4 == 0 {print $2}' "$log"); do
    eventually 90 "rolling restart: roll-$i, offloaded on the leader's host $lead, has its replicas on c4 and c5" bash -c \
      "kubectl --kubeconfig $("$TESTBED" kubeconfig c4) get ns roll-$i-$lead && kubectl --kubeconfig $("$TESTBED" kubeconfig c5) get ns roll-$i-$lead"
  done

  n=$(awk '$1 == "map" && $5 != "-"' "$log" | wc -l)
  [ "$n" -ge 3 ] && pass "rolling restart: $n endpoint mappings got their address during it" || fail "rolling restart: only $n endpoint mappings were Ready: $(cat "$log")"
  missing=""
  while read -r _ i host rc address; do
    [ "$rc" = 0 ] || continue
    got=$(k "$host" get endpointmapping "roll-$i" -o jsonpath='{.status.address}' 2>&1) || { missing+=" roll-$i@$host"; continue; }
    [ "$address" = - ] || [ "$got" = "$address" ] || missing+=" roll-$i@$host:$address->$got"
  done < <(awk '$1 == "map"' "$log")
  expect_eq "rolling restart: every EndpointMapping applied is on its host, with the address it was given" "$missing" ""
  expect_eq "rolling restart: no address given twice by a host" \
    "$(awk '$1 == "map" && $5 != "-" {print $3, $5}' "$log" | sort | uniq -d)" ""
  # (A host that never led has neither: its IPAM is written once it leads.)
  for c in c1 c2 c3; do
    expect_eq "rolling restart: $c's IPAM blocks hold every endpoint address once" \
      "$(k "$c" get ipamblocks -o json | jq -r '[.items[].spec.endpointMappings // {} | .[] | .ip] | (length - (unique | length))')" 0
    expect_eq "rolling restart: $c's NatMappings for c5 map each endpoint to one address" \
      "$(k "$c" get natmappings -l kubectl-fed.io/cluster-id=c5 -o json | jq -r '[.items[].spec.mappings // {} | to_entries[] | .value] | (length - (unique | length))')" 0
  done
}
