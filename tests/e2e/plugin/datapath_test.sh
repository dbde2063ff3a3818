#!/usr/bin/env bash
# The federation in-cluster, end to end (docs/JOIN.md): on a testbed of its own, `init` on c1,
# `join c2` and `join c3` with --wait — the manager Deployment (two replicas electing a leader
# through the host's federation etcd member, manager_ha_checks.sh) and the agent DaemonSet run the
# fed-agent image, gateways talk WireGuard (wireguard-go) across the testbed's WAN — then pods
# of both sides exchange TCP, the receiver checks the source address it sees, and `unjoin`
# leaves c3's kernel as it was. Run twice: distinct PodCIDRs, then every cluster on
# 10.244.0.0/16 (--same-pod-cidr), where each side reaches the other through its remap (NETMAP).
# The second run checks what depends on the addresses; what does not (kubectl logs through the
# virtual node, config reflection, tenancy, replication, the Local strategies, the webhook
# without a manager, HA, members leaving) runs once, in the first (CI time).
source "$(dirname "$0")/../lib.sh"
FED=${KUBECTL_FED:-${FED_BINARY_DIR:?}/plugin/kubectl-fed}
AGENT=${FED_BINARY_DIR:?}/agent/fed-agent
[ -x "$FED" ] && [ -x "$AGENT" ] || fail "kubectl-fed and fed-agent must be built ($FED_BINARY_DIR)"
work=$(mktemp -d)
# On failure, the node logs' last lines before the testbed (and its logs) go.
on_exit() {
  local rc=$?
  stop_background_jobs  # a traffic or mapping load loop, if a check inside it failed
  if [ "$rc" != 0 ]; then
    # What the failed check last saw, when it kept it (CI keeps the head and tail of a long log).
    [ -s "$work/why" ] && { echo "--- the failed check last saw:"; cut -c1-400 "$work/why" | tail -n 20; }
    for f in /var/lib/fedtb/c*/node*/logs/kubelet.log /var/lib/fedtb/c*/node*/logs/containerd.log; do
      # Without the filesystem-stats errors the testbed's kubelets log every 10 s.
      [ -f "$f" ] && { echo "--- $f"; grep -v 'eviction_manager\|cri_stats_provider' "$f" | tail -n 8; }
    done
    # The managers' own account (a restart's reason is in its previous container's log).
    for pod in $(k c1 --request-timeout=10s -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-manager -o name 2>/dev/null); do
      echo "--- c1: $pod (previous container, then this one)"
      k c1 --request-timeout=10s -n kubectl-fed-system logs "$pod" --previous --tail 12 2>&1 | cut -c1-300 || true
      k c1 --request-timeout=10s -n kubectl-fed-system logs "$pod" --tail 12 2>&1 | cut -c1-300 || true
    done
    for c in c1 c2 c3; do
      echo "--- $c: kubectl-fed-system"
      k "$c" --request-timeout=10s -n kubectl-fed-system get pods -o wide 2>&1 | tail -n 8 || true
      k "$c" --request-timeout=10s -n kubectl-fed-system get events --sort-by=.lastTimestamp 2>&1 | tail -n 8 || true
    done
  fi
  "$TESTBED" down >/dev/null 2>&1 || true
  rm -rf "$work"
  [ "$rc" = 0 ] || failure_summary
}
trap on_exit EXIT
IMAGE=fed.local/fed-agent:dev

# run NAME ARGS...: kubectl-fed with stdout, stderr and exit code kept under $work.
run() {
  local name=$1; shift
  set +e; "$FED" "$@" >"$work/$name.out" 2>"$work/$name.err"; echo $? >"$work/$name.rc"; set -e
}
ok_run() { run "$@"; [ "$(cat "$work/$1.rc")" = 0 ] || fail "kubectl fed ${*:2}: $(cat "$work/$1.err")"; }

# What of c3's kernel the federation may touch, per node: policy rules, every routing table,
# links and the FED/fed: iptables rules. The pods' veths and the CNI bridge cni0 (made by the
# bridge plugin when a node runs its first pod) are the testbed's, not ours.
kernel_state() {
  local n
  for n in node1 node2; do
    echo "== $n"
    "$TESTBED" exec c3 "$n" -- sh -c 'ip rule; ip route show table all; ip -o link | awk -F": " "{print \$2}"; iptables-save | grep -i -e FED -e "fed:" | grep -v "^:"; nft list table ip fed 2>/dev/null; true' 2>&1 |
      grep -v -e veth -e cni0 || true
  done
}

# probe_pod CLUSTER NODE NAME ARGS...: a pod running the fed-agent image's `probe` role.
probe_pod() {
  local c=$1 node=$2 name=$3; shift 3
  k "$c" run "$name" --image "$IMAGE" --restart=Never --overrides="{\"spec\":{\"nodeName\":\"$node\"}}" \
    --command -- /usr/local/bin/fed-agent probe "$@" >/dev/null
}

# dial CLUSTER NODE NAME ADDRESS:PORT: a probe pod dials once; prints what it was answered.
dial() {
  local c=$1 node=$2 name=$3
  probe_pod "$c" "$node" "$name" --dial "$4" --timeout 60s
  eventually 90 "the dialler $c/$name finished" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig "$c") get pod $name -o jsonpath='{.status.phase}')\" = Succeeded ]" >&2
  k "$c" logs "$name"
  k "$c" delete pod "$name" --now >/dev/null
}

# nat_entries PEER: every entry of c1's NatMappings for PEER (one per block), as [{key, value}].
nat_entries() {
  k c1 get natmappings -l kubectl-fed.io/cluster-id="$1" -o json | jq '[.items[].spec.mappings // {} | to_entries[]]'
}

# Deletes the manager's pod without grace (a crash) and waits for its replacement to be Ready.
kill_manager() {
  k c1 -n kubectl-fed-system delete pod -l app.kubernetes.io/name=fed-manager --grace-period=0 --force >/dev/null 2>&1
  k c1 -n kubectl-fed-system rollout status deploy/fed-manager --timeout=90s >/dev/null
}

# shellcheck source=offload_checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/offload_checks.sh"
# shellcheck source=tenancy_checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/tenancy_checks.sh"
# shellcheck source=replication_checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/replication_checks.sh"
# shellcheck source=manager_ha_checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/manager_ha_checks.sh"
# shellcheck source=member_loss_checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/member_loss_checks.sh"
# shellcheck source=reflection_checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/reflection_checks.sh"
# shellcheck source=mapping_crash_checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/mapping_crash_checks.sh"

# c3 is a provider with a namespace cap and a quota per replica (tenancy_checks.sh). In the
# same-PodCIDR scenario its agents also route node to gateway without VXLAN (--direct-routing)
# and its link with c1 is the unencrypted VXLAN tunnel (--tunnel-backend vxlan): the
# worker-to-worker and spoke-to-spoke checks below then cross both.
C3_TENANCY=(--namespace-quota 2 --share-cpu 2 --share-memory 4Gi)

# vxlan_tunnel_checks MODE: c1-c3 runs over VXLAN: c3's gateway has fed.vxtun toward c1's
# gateway address and no WireGuard; c1's gateway has both (c2 stays on WireGuard).
vxlan_tunnel_checks() {
  local mode=$1
  expect_eq "$mode: --tunnel-backend vxlan: c3's FederatedCluster reports it" \
    "$(k c1 get federatedcluster c3 -o jsonpath='{.spec.tunnelBackend}/{.status.tunnel.backend}/{.status.tunnel.state}')" \
    vxlan/vxlan/Connected
  "$TESTBED" exec c3 node1 -- bridge fdb show dev fed.vxtun | grep -q 'dst 172.31.0.1 ' \
    && pass "$mode: --tunnel-backend vxlan: c3's gateway sends fed.vxtun to c1's gateway 172.31.0.1" \
    || fail "$mode: c3's fed.vxtun: $("$TESTBED" exec c3 node1 -- bridge fdb show dev fed.vxtun 2>&1)"
  "$TESTBED" exec c3 node1 -- ip link show fed.wg >/dev/null 2>&1 \
    && fail "$mode: c3's gateway runs WireGuard although its only peer uses VXLAN" \
    || pass "$mode: --tunnel-backend vxlan: no WireGuard interface on c3's gateway"
  "$TESTBED" exec c1 node1 -- sh -c 'ip link show fed.vxtun && ip link show fed.wg' >/dev/null 2>&1 \
    && pass "$mode: c1's gateway carries c3 over fed.vxtun and c2 over fed.wg" \
    || fail "$mode: c1's gateway lacks fed.vxtun or fed.wg"
}

# direct_routing_checks MODE: c3's worker reaches its gateway by node IP, with no overlay device.
direct_routing_checks() {
  local mode=$1 gw_ip
  gw_ip=$(k c3 get node node1 -o jsonpath='{.status.addresses[?(@.type=="InternalIP")].address}')
  eventually 60 "$mode: --direct-routing: c3/node2 routes the peers via node1 ($gw_ip) on its LAN" bash -c \
    "'$TESTBED' exec c3 node2 -- ip route show table 18960 | grep -q ' via $gw_ip dev '"
  "$TESTBED" exec c3 node2 -- ip route show table 18960 | grep -q fed.vxlan \
    && fail "$mode: --direct-routing: c3/node2 still routes over fed.vxlan" \
    || pass "$mode: --direct-routing: no route of c3/node2 uses the overlay"
  "$TESTBED" exec c3 node2 -- ip link show fed.vxlan >/dev/null 2>&1 \
    && fail "$mode: --direct-routing: c3/node2 still has fed.vxlan" \
    || pass "$mode: --direct-routing: c3/node2 has no overlay device"
}

scenario() {
  local mode=$1
  echo "# --- $mode PodCIDRs"
  "$TESTBED" up --clusters 3 --nodes 2 $([ "$mode" = same ] && echo --same-pod-cidr) >/dev/null
  "$TESTBED" agent-image "$IMAGE" "$AGENT" >/dev/null
  export KUBECONFIG="$("$TESTBED" kubeconfig c1):$("$TESTBED" kubeconfig c2):$("$TESTBED" kubeconfig c3)"
  kernel_state >"$work/c3.before"

  # Distinct PodCIDRs: c1 states its cluster CIDR (its nodes' /24s are all init would find), so
  # its ExternalCIDR, of the same length, holds mapping_crashes' 10 000 endpoints.
  ok_run init init --context c1 $([ "$mode" = distinct ] && echo --pod-cidr 10.241.0.0/16)
  local i c3_flags=("${C3_TENANCY[@]}")
  [ "$mode" = same ] && c3_flags+=(--direct-routing --tunnel-backend vxlan)
  for i in 2 3; do
    ok_run join$i join c$i --context c1 --member-context c$i $([ $i = 3 ] && echo "${c3_flags[@]}") \
      --cluster-labels "region=eu,provider=$([ $i = 2 ] && echo a || echo b)" \
      --wait --timeout 3m -o json
    expect_eq "$mode: join c$i --wait: result" "$(jq -r .result "$work/join$i.out")" joined
    local dialler seen pods_here want
    dialler=$(jq -r .dataPath.dialler.podIP "$work/join$i.out")
    seen=$(jq -r .dataPath.sourceSeen "$work/join$i.out")
    run st status --context c1 -o json
    pods_here=$(jq -r --arg m "c$i" '.members[] | select(.name == $m) | .networks.remotePodCIDR' "$work/st.out")
    want=$(netmap "$dialler" "$(jq -r --arg m "c$i" '.members[] | select(.name == $m) | .networks.podCIDR' "$work/st.out")" "$pods_here")
    expect_eq "$mode: join c$i --wait: c1's probe saw c$i's pod $dialler as $want (c$i's pods on c1: $pods_here)" "$seen" "$want"
    if [ "$mode" = same ]; then
      [ "$seen" != "$dialler" ] && pass "$mode: the source was translated ($dialler -> $seen)" || fail "$mode: no translation"
    fi
  done
  ok_run status status --context c1 -o json
  expect_eq "$mode: status -o json: both members Ready" \
    "$(jq -r '[.members[] | .conditions[] | select(.type == "Ready") | .status] | join(",")' "$work/status.out")" "True,True"
  expect_eq "$mode: no probe pod left on c1" "$(k c1 -n kubectl-fed-system get pods -l app.kubernetes.io/component=join-probe -o name)" ""
  # Each member's virtual node on c1 is Ready once its tunnel is (the in-cluster manager's own
  # identity wrote it, through the admission policy); the agent DaemonSet stays on real nodes.
  eventually 30 "$mode: virtual nodes kubectl-fed-c2 and kubectl-fed-c3 are Ready on c1" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get nodes -l kubectl-fed.io/type=virtual-node -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type==\"Ready\")].status} {end}')\" = 'kubectl-fed-c2=True kubectl-fed-c3=True ' ]"
  expect_eq "$mode: the agent DaemonSet on c1 schedules the 2 real nodes only" \
    "$(k c1 -n kubectl-fed-system get ds fed-agent -o jsonpath='{.status.desiredNumberScheduled}/{.status.numberReady}')" 2/2
  if [ "$mode" = same ]; then
    direct_routing_checks "$mode"
    vxlan_tunnel_checks "$mode"
  else
    manager_ha "$mode"
  fi

  # The other direction, worker to worker: a pod on c1/node2 dials a pod on c3/node2 at the
  # address c1 sees it at; the listener reports the source it saw.
  # It serves the worker-to-worker, spoke-to-spoke and mesh dials below, and is deleted after
  # the last: its lifetime must outlast them on a loaded machine too.
  probe_pod c3 node2 listener --listen 7946 --id c3 --for 600s
  k c3 wait --for=condition=Ready pod/listener --timeout=60s >/dev/null
  local lip c3_pods c3_here target c1_here_on_c3
  lip=$(k c3 get pod listener -o jsonpath='{.status.podIP}')
  c3_pods=$(jq -r '.members[] | select(.name == "c3") | .networks.podCIDR' "$work/status.out")
  c3_here=$(jq -r '.members[] | select(.name == "c3") | .networks.remotePodCIDR' "$work/status.out")
  target=$(netmap "$lip" "$c3_pods" "$c3_here")
  probe_pod c1 node2 dialler --dial "$target:7946" --timeout 60s
  eventually 90 "$mode: the dialler on c1 finished" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get pod dialler -o jsonpath='{.status.phase}')\" = Succeeded ]"
  local answer dip
  answer=$(k c1 logs dialler)
  dip=$(k c1 get pod dialler -o jsonpath='{.status.podIP}')
  c1_here_on_c3=$(jq -r '.members[] | select(.name == "c3") | .networks.localRemappedPodCIDR' "$work/status.out")
  [ "$c1_here_on_c3" = None ] && want=$dip || want=$(netmap "$dip" "$(jq -r .podCIDR <<<"$(k c1 -n kubectl-fed-system get cm federation -o jsonpath='{.data}')")" "$c1_here_on_c3")
  expect_eq "$mode: c1/node2 -> c3/node2 ($target): c3's pod saw c1's pod $dip as $want" "$answer" "kubectl-fed-probe c3 from $want"
  k c1 delete pod dialler --now >/dev/null

  reflection "$mode" "$c3_pods" "$c3_here"

  # Spoke to spoke through the hub (MapEndpointIP): an EndpointMapping on c1 makes c3's pod
  # reachable from c2 at an address of c1's ExternalCIDR; c1's gateway DNATs it to the pod and
  # SNATs the transit traffic to c1's own address as c3 sees it.
  k c1 apply -f - >/dev/null <<YAML
apiVersion: fed.kubectl-fed.io/v1alpha1
kind: EndpointMapping
metadata: {name: c3-listener-for-c2}
spec: {clusterID: c2, endpoint: "$target"}
YAML
  eventually 30 "$mode: the EndpointMapping is Ready" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get endpointmapping c3-listener-for-c2 -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}')\" = True ]"
  local via path
  via=$(k c1 get endpointmapping c3-listener-for-c2 -o jsonpath='{.status.address}')
  path=$(k c1 get endpointmapping c3-listener-for-c2 -o jsonpath='{.status.path}')
  expect_eq "$mode: c3's pod is mapped through c1's ExternalCIDR for c2 ($via)" "$path" ExternalCIDR
  # One NatMapping per peer and block of c1's ExternalCIDR, and one IpamBlock per block.
  local shard block
  shard=$(k c1 get natmappings -l kubectl-fed.io/cluster-id=c2 -o json |
    jq -r --arg t "$target" '.items[] | select([.spec.mappings // {} | to_entries[] | select(.value == $t)] | length == 1) | .metadata.name')
  block=${shard#c2.}
  expect_eq "$mode: c1's NatMapping for c2 of the address's block ($shard) holds the mapping" \
    "$(nat_entries c2 | jq -r --arg t "$target" '[.[] | select(.value == $t)] | length') ${shard%%.*}" "1 c2"
  expect_eq "$mode: c1's IpamBlock $block holds the endpoint" \
    "$(k c1 get ipamblock "$block" -o json | jq -r --arg t "$target" '.spec.endpointMappings[$t].clusters | join(",")')" c2
  # The manager watches NatMappings: one deleted by hand is written back from the IPAM.
  local old_uid
  old_uid=$(k c1 get natmapping "$shard" -o jsonpath='{.metadata.uid}')
  k c1 delete natmapping "$shard" --wait=false >/dev/null
  eventually 30 "$mode: c1's NatMapping $shard, deleted by hand, is written back with the mapping" bash -c \
    "kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get natmapping $shard -o json | jq -e --arg t $target --arg old $old_uid '.metadata.uid != \$old and ([.spec.mappings // {} | to_entries[] | select(.value == \$t)] | length) == 1'"
  probe_pod c2 node2 spoke --dial "$via:7946" --timeout 60s
  eventually 90 "$mode: the dialler on c2 finished" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c2) get pod spoke -o jsonpath='{.status.phase}')\" = Succeeded ]"
  answer=$(k c2 logs spoke)
  local c1_pods seen
  c1_pods=$(k c1 -n kubectl-fed-system get cm federation -o jsonpath='{.data.podCIDR}')
  [ "$c1_here_on_c3" = None ] || c1_pods=$c1_here_on_c3
  seen=${answer##* from }
  python3 -c 'import ipaddress,sys; sys.exit(ipaddress.ip_address(sys.argv[1]) not in ipaddress.ip_network(sys.argv[2]))' "$seen" "$c1_pods" \
    && pass "$mode: c2/node2 -> $via -> c3/node2 through c1: answered by c3, seen from the hub's $seen (in $c1_pods)" \
    || fail "$mode: spoke to spoke: $answer (want a source in $c1_pods)"
  k c2 delete pod spoke --now >/dev/null

  # The manager restarts (killed, no grace): the mapping survives in the IpamState, and the next
  # endpoint gets another address, not the same one again.
  kill_manager
  k c1 apply -f - >/dev/null <<YAML
apiVersion: fed.kubectl-fed.io/v1alpha1
kind: EndpointMapping
metadata: {name: other-for-c2}
spec: {clusterID: c2, endpoint: "$(netmap "$lip" "$c3_pods" "$c3_here" | awk -F. '{print $1"."$2"."$3"."($4+100)}')"}
YAML
  eventually 60 "$mode: after a manager restart, a second EndpointMapping is Ready" bash -c \
    "[ -n \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get endpointmapping other-for-c2 -o jsonpath='{.status.address}')\" ]"
  local other
  other=$(k c1 get endpointmapping other-for-c2 -o jsonpath='{.status.address}')
  [ "$other" != "$via" ] && pass "$mode: the second endpoint got its own address ($other, not $via)" || fail "$mode: $other allocated twice"
  expect_eq "$mode: the first mapping kept its address" "$(k c1 get endpointmapping c3-listener-for-c2 -o jsonpath='{.status.address}')" "$via"
  expect_eq "$mode: c1's NatMappings for c2 hold both" "$(nat_entries c2 | jq -r length)" 2
  k c1 delete endpointmapping other-for-c2 c3-listener-for-c2 --timeout=30s >/dev/null
  eventually 30 "$mode: UnmapEndpointIP: no NatMapping or IpamBlock is left for the emptied block" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get natmappings -l kubectl-fed.io/cluster-id=c2 -o name) \$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get ipamblock $block --ignore-not-found -o name)\" = ' ' ]"
  # A backlog through a manager crash and a gateway agent crash (mapping_crash_checks.sh).
  if [ "$mode" = distinct ]; then mapping_crashes "$mode"; fi

  # Mesh: `peer c2 c3` links the spokes directly; c2's pod reaches c3's pod at its address as
  # c2 sees it (c2's remap of c3's PodCIDR), and c3 sees c2's pod at c3's remap of c2's.
  ok_run peer peer c2 c3 --context c1 --wait --timeout 2m -o json
  expect_eq "$mode: peer c2 c3 --wait" "$(jq -r '.result + " " + (.ready | tostring)' "$work/peer.out")" "peered true"
  local c3_on_c2 c2_on_c3 direct
  c3_on_c2=$(k c2 get peering c3 -o jsonpath='{.status.remotePodCIDR}')
  c2_on_c3=$(k c3 get peering c2 -o jsonpath='{.status.remotePodCIDR}')
  direct=$lip
  [ "$c3_on_c2" = None ] || direct=$(netmap "$lip" "$(k c2 get peering c3 -o jsonpath='{.spec.peerPodCIDR}')" "$c3_on_c2")
  probe_pod c2 node2 mesh --dial "$direct:7946" --timeout 60s
  eventually 90 "$mode: the dialler on c2 finished" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c2) get pod mesh -o jsonpath='{.status.phase}')\" = Succeeded ]"
  dip=$(k c2 get pod mesh -o jsonpath='{.status.podIP}')
  want=$dip
  [ "$c2_on_c3" = None ] || want=$(netmap "$dip" "$(k c3 get peering c2 -o jsonpath='{.spec.peerPodCIDR}')" "$c2_on_c3")
  expect_eq "$mode: c2/node2 -> c3/node2 directly ($direct): c3 saw c2's pod $dip as $want" "$(k c2 logs mesh)" "kubectl-fed-probe c3 from $want"
  k c2 delete pod mesh --now >/dev/null
  run peer2 peer c3 c2 --context c1 -o json
  expect_eq "$mode: peer c3 c2 again" "$(jq -r .result "$work/peer2.out")" alreadyPeered
  ok_run unpeer peer c2 c3 --context c1 --remove --wait -o json
  expect_eq "$mode: peer --remove: the members' Peerings for each other are gone" \
    "$(k c2 get peering c3 -o name --ignore-not-found)$(k c3 get peering c2 -o name --ignore-not-found)" ""
  k c3 delete pod listener --now >/dev/null

  # c2 leaves. Once with a workload on it, under traffic (member_loss_checks.sh): the
  # same-PodCIDR run differs in addresses, not in how members leave.
  if [ "$mode" = distinct ]; then
    members_leaving "$mode"
  else
    ok_run unjoin2a unjoin c2 --context c1 --member-context c2
  fi
  # Kill the manager during a join, join again: converges, nothing allocated twice.
  if [ "$mode" = distinct ]; then
    # join --wait names a broken hop inside a cluster: a foreign link called fed.vxlan on
    # c2/node2 (where the dialler must run: node1 is cordoned) keeps that agent from converging.
    k c2 cordon node1 >/dev/null
    "$TESTBED" exec c2 node2 -- ip link add fed.vxlan type bridge
    run broken join c2 --context c1 --member-context c2 --wait --timeout 60s -o json
    [ "$(cat "$work/broken.rc")" != 0 ] \
      && grep -q "c2/node2: fed-agent .* not Ready, its datapath has not converged (DatapathFailed: .*link fed.vxlan exists" "$work/broken.err" \
      && pass "$mode: join --wait names the broken hop: $(grep -o 'the node agents report: [^;]*' "$work/broken.err" | cut -c1-160)" \
      || fail "$mode: join --wait with a broken c2/node2 (rc $(cat "$work/broken.rc")): $(cat "$work/broken.err")"
    "$TESTBED" exec c2 node2 -- ip link del fed.vxlan
    k c2 uncordon node1 >/dev/null
  fi
  ok_run rejoin join c2 --context c1 --member-context c2
  kill_manager
  ok_run rejoin2 join c2 --context c1 --member-context c2 --wait --timeout 3m -o json
  pass "$mode: join c2 after the manager was killed mid-join converged ($(jq -r .dataPath.sourceSeen "$work/rejoin2.out") seen)"
  expect_eq "$mode: the host IPAM holds each member once" "$(k c1 get ipamstate ipam -o json | jq -r '.spec.clusterSubnets | keys | join(",")')" c2,c3
  expect_eq "$mode: the members' ExternalCIDRs are remapped to distinct networks on c1" \
    "$(k c1 get ipamstate ipam -o json | jq -r '[.spec.clusterSubnets[].remoteExternalCIDR] | unique | length')" 2
  expect_eq "$mode: distinct tunnel addresses" \
    "$(k c1 get federatedclusters -o json | jq -r '[.items[].metadata.annotations["kubectl-fed.io/tunnel-address"]] | unique | length')" 2

  # Join again: nothing changes.
  run again join c3 --context c1 --member-context c3 "${c3_flags[@]}" \
    --cluster-labels region=eu,provider=b -o json
  expect_eq "$mode: join c3 again" "$(jq -r .result "$work/again.out")" alreadyJoined

  # unjoin: c3's kernel is as before the join (the agent's preStop uninstalled its state).
  ok_run unjoin3 unjoin c3 --context c1 --member-context c3
  eventually 120 "$mode: c3's agents are gone" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) get pods -A -l app.kubernetes.io/part-of=kubectl-fed -o name)\" ]"
  kernel_state >"$work/c3.after"
  diff "$work/c3.before" "$work/c3.after" >"$work/c3.diff" && pass "$mode: c3's rules, routes, links and NAT are as before the join" \
    || fail "$mode: c3's kernel differs after unjoin: $(cat "$work/c3.diff")"
  expect_eq "$mode: c3 keeps nothing labelled part-of kubectl-fed" \
    "$(k c3 get ns,crd,clusterrole,clusterrolebinding,validatingadmissionpolicy,validatingadmissionpolicybinding,validatingwebhookconfiguration -l app.kubernetes.io/part-of=kubectl-fed -o name)" ""
  ok_run unjoin2 unjoin c2 --context c1 --member-context c2
  eventually 30 "$mode: after both unjoins, c1 has no virtual node" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get nodes -l kubectl-fed.io/type=virtual-node -o name)\" ]"
  "$TESTBED" down >/dev/null
}

scenario distinct
scenario same
expect_eq "nothing of the testbeds is left" "$("$TESTBED" leftovers)" ""
finish
