#!/usr/bin/env bash
# fed-agent manager on the host c1 joins the member c2 as docs/JOIN.md describes. The
# federation ConfigMaps, credential Secret and FederatedCluster are what `kubectl fed init/join`
# write; here the test writes them itself so the manager is tested on its own. The manager runs
# as a process outside the cluster with c1's admin kubeconfig; its credential for c2 is c2's
# host-side kubeconfig (the in-cluster manager gets the member's federation identity instead).
source "$(dirname "$0")/../../../lib.sh"
source "$(dirname "$0")/endpoint_blocks_checks.sh"
AGENT=${FED_BINARY_DIR:?}/agent/fed-agent
[ -x "$AGENT" ] || fail "fed-agent not built at $AGENT"
work=$(mktemp -d)
manager_pid=""
cleanup() {
  local rc=${1:-$?}
  [ -n "$manager_pid" ] && kill "$manager_pid" 2>/dev/null && wait "$manager_pid" 2>/dev/null
  for c in c1 c2; do
    k $c delete federatedclusters --all --wait=false >/dev/null 2>&1 || true
    k $c patch federatedcluster c2 --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
    k $c delete namespace kubectl-fed-system --wait=false >/dev/null 2>&1 || true
    k $c delete -f "$REPO/manifests/crds" --wait=false >/dev/null 2>&1 || true
  done
  rm -rf "$work"
  [ "$rc" = 0 ] || failure_summary
}
trap cleanup EXIT

# A namespace left Terminating by an earlier run must be gone before this one starts.
for c in c1 c2; do
  k $c wait --for=delete namespace/kubectl-fed-system --timeout=120s >/dev/null 2>&1 || true
done
for c in c1 c2; do
  k $c apply -f "$REPO/manifests/crds" >/dev/null
  k $c create namespace kubectl-fed-system >/dev/null
done
for c in c1 c2; do
  k $c wait --for=condition=Established --timeout=60s -f "$REPO/manifests/crds" >/dev/null
done
k c1 -n kubectl-fed-system create configmap federation --from-literal=clusterID=c1 \
  --from-literal=role=host --from-literal=podCIDR=10.241.0.0/16 \
  --from-literal=serviceCIDR=10.101.0.0/16 >/dev/null
k c2 -n kubectl-fed-system create configmap federation --from-literal=clusterID=c2 \
  --from-literal=role=member --from-literal=podCIDR=10.242.0.0/16 \
  --from-literal=serviceCIDR=10.102.0.0/16 --from-literal=federationID=c1 >/dev/null
k c1 -n kubectl-fed-system create secret generic member-c2 --type=kubectl-fed.io/member-credential \
  --from-file=kubeconfig="$("$TESTBED" kubeconfig c2)" >/dev/null
cat >"$work/fc.yaml" <<YAML
apiVersion: fed.kubectl-fed.io/v1alpha1
kind: FederatedCluster
metadata: {name: c2}
spec:
  clusterID: c2
  apiEndpoint: https://127.0.0.1:16002
  credentialSecretRef: {name: member-c2, namespace: kubectl-fed-system}
YAML
k c1 apply -f "$work/fc.yaml" >/dev/null

start_manager() {
  "$AGENT" manager --kubeconfig "$("$TESTBED" kubeconfig c1)" --bind-address 127.0.0.1:19441 \
    --metrics-bind-address 127.0.0.1:0 \
    --webhook-bind-address 127.0.0.1:0 --ipam-block-length 28 \
    >>"$work/manager.log" 2>&1 &
  manager_pid=$!
}
start_manager
trap 'rc=$?; echo "--- manager log"; tail -40 "$work/manager.log"; cleanup "$rc"' EXIT

jp() { k "$1" get "$2" -o "jsonpath=$3" 2>/dev/null; }
peering_ready() { [ "$(jp "$1" "peering/$2" '{.status.conditions[?(@.type=="NetworkReady")].status}')" = True ]; }
eventually 60 "Peering c2 on the host has its networks exchanged" peering_ready c1 c2
eventually 30 "Peering c1 on the member has its networks exchanged" peering_ready c2 c1
expect_eq "host's Peering: the member's PodCIDR as announced" "$(jp c1 peering/c2 '{.spec.peerPodCIDR}')" 10.242.0.0/16
expect_eq "member's Peering: the host's PodCIDR" "$(jp c2 peering/c1 '{.spec.peerPodCIDR}')" 10.241.0.0/16
expect_eq "distinct PodCIDRs are not remapped" "$(jp c1 peering/c2 '{.status.remotePodCIDR}')" None
member_ext=$(jp c2 ipamstate/ipam '{.spec.externalCIDR}')
host_ext=$(jp c1 ipamstate/ipam '{.spec.externalCIDR}')
[ -n "$member_ext" ] && [ -n "$host_ext" ] && pass "both IPAMs persisted with ExternalCIDRs ($host_ext, $member_ext)" || fail "IpamState missing"
expect_eq "host's Peering announces the member's ExternalCIDR" "$(jp c1 peering/c2 '{.spec.peerExternalCIDR}')" "$member_ext"
expect_eq "tunnel addresses: host" "$(jp c1 peering/c2 '{.spec.localTunnelAddress}')" 169.254.64.1
expect_eq "tunnel addresses: member" "$(jp c2 peering/c1 '{.spec.localTunnelAddress}')" "$(jp c1 federatedcluster/c2 '{.metadata.annotations.kubectl-fed\.io/tunnel-address}')"
expect_eq "FederatedCluster finalizer" "$(jp c1 federatedcluster/c2 '{.metadata.finalizers[0]}')" kubectl-fed.io/membership
expect_eq "FederatedCluster NetworkReady" "$(jp c1 federatedcluster/c2 '{.status.conditions[?(@.type=="NetworkReady")].status}')" True
expect_eq "FederatedCluster not Ready without gateways" "$(jp c1 federatedcluster/c2 '{.status.conditions[?(@.type=="Ready")].status}')" False
expect_eq "FederatedCluster says what it waits for" "$(jp c1 federatedcluster/c2 '{.status.tunnel.message}')" "waiting for the gateway of c1 to publish its key"

# The gateways' agents publish their endpoint and key; the manager carries each to the peer.
key1=$(wg genkey | wg pubkey); key2=$(wg genkey | wg pubkey)
k c1 -n kubectl-fed-system create configmap gateway --from-literal=node=node1 \
  --from-literal=endpoint=172.31.0.1:51820 --from-literal=publicKey="$key1" >/dev/null
k c2 -n kubectl-fed-system create configmap gateway --from-literal=node=node1 \
  --from-literal=endpoint=172.31.0.2:51820 --from-literal=publicKey="$key2" >/dev/null
key_on() { [ "$(jp "$1" "peering/$2" '{.spec.publicKey}')" = "$3" ]; }
eventually 30 "the member's gateway key reaches the host's Peering" key_on c1 c2 "$key2"
eventually 30 "the host's gateway key reaches the member's Peering" key_on c2 c1 "$key1"
expect_eq "endpoint of the member's gateway on the host" "$(jp c1 peering/c2 '{.spec.gatewayEndpoint}')" 172.31.0.2:51820

# Kill the manager: the restarted one restores both IPAMs and allocates nothing new.
before_host=$(jp c1 ipamstate/ipam '{.spec}'); before_member=$(jp c2 ipamstate/ipam '{.spec}')
rv_host=$(jp c1 ipamstate/ipam '{.metadata.resourceVersion}')
kill -9 "$manager_pid"; wait "$manager_pid" 2>/dev/null || true
start_manager
eventually 30 "restarted manager is ready" curl -sf http://127.0.0.1:19441/readyz
sleep 7  # more than one requeue period of a member that is not Ready (5 s)
expect_eq "host IPAM unchanged after the restart" "$(jp c1 ipamstate/ipam '{.spec}')" "$before_host"
expect_eq "member IPAM unchanged after the restart" "$(jp c2 ipamstate/ipam '{.spec}')" "$before_member"
expect_eq "host IpamState not rewritten" "$(jp c1 ipamstate/ipam '{.metadata.resourceVersion}')" "$rv_host"

endpoint_blocks

# Unjoin: the finalizer removes both Peerings and both IPAM entries, then lets go.
k c1 delete federatedcluster c2 --wait=false >/dev/null
gone() { ! k "$1" get "$2" >/dev/null 2>&1; }
eventually 30 "FederatedCluster c2 deleted after the teardown" gone c1 federatedcluster/c2
eventually 10 "host's Peering c2 removed" gone c1 peering/c2
eventually 10 "member's Peering c1 removed" gone c2 peering/c1
expect_eq "host IPAM forgot c2" "$(jp c1 ipamstate/ipam '{.spec.clusterSubnets.c2}')" ""
expect_eq "member IPAM forgot c1" "$(jp c2 ipamstate/ipam '{.spec.clusterSubnets.c1}')" ""
trap cleanup EXIT
finish
