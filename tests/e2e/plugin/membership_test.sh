#!/usr/bin/env bash
# kubectl fed init on c1, join c3, join again, unjoin, as docs/JOIN.md describes, with the
# refusals (bad flags, unreachable member, member of another federation) that must change
# nothing. The manager runs as a process against c1 (the fed-agent image is not loaded), as in
# tests/e2e/agent/manager/membership/membership_test.sh; it reaches c3 through the credential Secret
# join wrote, so its progress proves the federation's identity works. c1 and c3 end clean.
source "$(dirname "$0")/../lib.sh"
FED=${KUBECTL_FED:-${FED_BINARY_DIR:?}/plugin/kubectl-fed}
AGENT=${FED_BINARY_DIR:?}/agent/fed-agent
[ -x "$FED" ] || fail "kubectl-fed not built at $FED"
[ -x "$AGENT" ] || fail "fed-agent not built at $AGENT"
work=$(mktemp -d)
export KUBECONFIG="$("$TESTBED" kubeconfig c1):$("$TESTBED" kubeconfig c3)"
manager_pid=""
SEL=app.kubernetes.io/part-of=kubectl-fed
DERIVED='["Pod", "ReplicaSet", "ControllerRevision", "Endpoints", "EndpointSlice"]'

# Every object labelled part-of kubectl-fed in cluster $1 (but the kinds in the JSON list
# $DERIVED: what controllers make from our templates, e.g. Pods), one line each:
# kind/namespace/name=resourceVersion. Objects whose status controllers keep updating
# (workloads, CRDs, the namespace) show their generation and the time of kubectl-fed's last
# write (managedFields) instead, which change only when their spec or our fields are written.
labelled() {
  local kinds
  kinds=$(k "$1" api-resources --verbs=list -o name 2>/dev/null | grep -v '^events' | paste -sd, -)
  k "$1" get "$kinds" -A -l "$SEL" -o json >"$work/labelled.json" 2>"$work/labelled.err" \
    || { echo "LISTING-FAILED: $(head -1 "$work/labelled.err")"; return; }
  jq -r --argjson derived "${DERIVED:-[]}" <"$work/labelled.json" '.items[] | select(.kind | IN($derived[]) | not) |
    "\(.kind)/\(.metadata.namespace // "")/\(.metadata.name)=" +
    (if (.kind | IN("Deployment", "DaemonSet", "CustomResourceDefinition", "Namespace"))
     then "gen\(.metadata.generation // 0)@" +
          ([.metadata.managedFields[]? | select(.manager == "kubectl-fed") | .time] | join(","))
     else .metadata.resourceVersion end)' | sort
}
wipe() {  # removes kubectl-fed from cluster $1 with kubectl alone
  local c=$1
  for off in $(k "$c" get namespaceoffloadings -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name} {end}' 2>/dev/null); do
    k "$c" -n "${off%/*}" patch namespaceoffloading "${off#*/}" --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
  done
  k "$c" delete federatedclusters --all --wait=false >/dev/null 2>&1 || true
  for fc in $(k "$c" get federatedclusters -o name 2>/dev/null); do
    k "$c" patch "$fc" --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
  done
  k "$c" delete ds,deploy -n kubectl-fed-system --all --wait=false >/dev/null 2>&1 || true
  k "$c" delete clusterrolebinding,clusterrole,validatingadmissionpolicybinding,validatingadmissionpolicy -l "$SEL" >/dev/null 2>&1 || true
  k "$c" -n kube-node-lease delete rolebinding,role,lease -l "$SEL" >/dev/null 2>&1 || true
  k "$c" delete nodes -l kubectl-fed.io/type=virtual-node >/dev/null 2>&1 || true
  k "$c" delete namespace kubectl-fed-system --wait=false >/dev/null 2>&1 || true
  k "$c" delete crd -l "$SEL" --wait=false >/dev/null 2>&1 || true
  k "$c" label nodes --all kubectl-fed.io/gateway- >/dev/null 2>&1 || true
  k "$c" wait --for=delete namespace/kubectl-fed-system --timeout=120s >/dev/null 2>&1 || true
}
cleanup() {
  local rc=${1:-$?}  # the test's exit status (a trap that ran commands before passes it)
  if [ -n "$manager_pid" ]; then kill "$manager_pid" 2>/dev/null; wait "$manager_pid" 2>/dev/null; fi
  if [ "$rc" != 0 ]; then
    # What c1's kubectl-fed pods were doing (once: its fed-etcd was not Ready within 120 s).
    echo "--- c1: kubectl-fed-system"
    k c1 --request-timeout=10s -n kubectl-fed-system get pods -o wide 2>&1 | tail -n 8 || true
    k c1 --request-timeout=10s -n kubectl-fed-system describe pods -l app.kubernetes.io/name=fed-etcd 2>&1 | tail -n 15 || true
    k c1 --request-timeout=10s -n kubectl-fed-system logs deploy/fed-etcd --tail 10 2>&1 | cut -c1-300 || true
  fi
  wipe c3; wipe c1
  rm -rf "$work"
  [ "$rc" = 0 ] || failure_summary
}
trap cleanup EXIT

# run NAME ARGS...: runs kubectl-fed, keeping stdout, stderr and the exit code.
run() {
  local name=$1; shift
  set +e; "$FED" "$@" >"$work/$name.out" 2>"$work/$name.err"; echo $? >"$work/$name.rc"; set -e
}
rc() { cat "$work/$1.rc"; }
# refused NAME RC WHAT: the run exited RC with one "error:" line on stderr and nothing on stdout.
refused() {
  expect_eq "$3: exit code" "$(rc "$1")" "$2"
  expect_eq "$3: one error line" "$(grep -c '^error: ' "$work/$1.err")" 1
  [ ! -s "$work/$1.out" ] && pass "$3: nothing on stdout ($(head -1 "$work/$1.err"))" \
    || fail "$3: stdout not empty: $(cat "$work/$1.out")"
}

# A clean start: nothing of ours on either cluster (an earlier failed run may have left some).
wipe c3; wipe c1
expect_eq "c1 starts with nothing labelled $SEL" "$(labelled c1)" ""
expect_eq "c3 starts with nothing labelled $SEL" "$(labelled c3)" ""

# --- init: dry run, refusals, the real thing, again.
run dry init --context c1 --dry-run=client -o yaml
expect_eq "init --dry-run exit code" "$(rc dry)" 0
python3 - "$work/dry.out" >"$work/dry.kinds" <<'PY' || fail "init --dry-run output is not YAML"
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
assert len(docs) == 1 and docs[0]["kind"] == "List", docs
for o in docs[0]["items"]:
    print(o["kind"] + "/" + o["metadata"]["name"])
PY
# What init may apply: the objects of manifests/kustomization.yaml but the member's federation
# identity (federation/) and the provider's tenancy (tenancy/), plus the federation ConfigMap
# and the federation etcd's certificates and the host's FederationHost (docs/HA.md).
python3 - "$REPO/manifests" >"$work/host.kinds" <<'PY'
import os, sys, yaml
root = sys.argv[1]
print("ConfigMap/federation")
for s in ("fed-etcd-ca", "fed-etcd-member", "fed-manager-etcd-client"):
    print("Secret/" + s)
print("FederationHost/c1")
for f in yaml.safe_load(open(os.path.join(root, "kustomization.yaml")))["resources"]:
    if f.startswith(("federation/", "tenancy/")):
        continue
    for d in yaml.safe_load_all(open(os.path.join(root, f))):
        if d:
            print(d["kind"] + "/" + d["metadata"]["name"])
PY
extra=$(grep -vxF -f "$work/host.kinds" "$work/dry.kinds" || true)
expect_eq "init --dry-run lists only host objects of manifests/ ($(wc -l <"$work/dry.kinds") objects)" "$extra" ""
for o in CustomResourceDefinition/federatedclusters.fed.kubectl-fed.io \
  CustomResourceDefinition/peerings.fed.kubectl-fed.io CustomResourceDefinition/ipamstates.fed.kubectl-fed.io \
  CustomResourceDefinition/natmappings.fed.kubectl-fed.io Namespace/kubectl-fed-system \
  ServiceAccount/fed-manager ServiceAccount/fed-agent ClusterRoleBinding/kubectl-fed:agent \
  Role/kubectl-fed:agent RoleBinding/kubectl-fed:manager ClusterRole/kubectl-fed:manager ClusterRole/kubectl-fed:agent Deployment/fed-manager \
  Deployment/fed-etcd Secret/fed-etcd-ca Secret/fed-etcd-member Secret/fed-manager-etcd-client \
  DaemonSet/fed-agent ConfigMap/federation; do
  grep -qx "$o" "$work/dry.kinds" && pass "dry run lists $o" || fail "dry run lacks $o"
done
expect_eq "init --dry-run changed nothing on c1" "$(labelled c1)" ""

run badid init --context c1 --cluster-id Bad_ID
refused badid 2 "init --cluster-id Bad_ID"
grep -q -- "--cluster-id" "$work/badid.err" && pass "the error names --cluster-id" || fail "$(cat "$work/badid.err")"
run badcidr init --context c1 --pod-cidr 10.241.0.0/33
refused badcidr 2 "init --pod-cidr 10.241.0.0/33"
run overlap init --context c1 --pod-cidr 10.96.0.0/11 --service-cidr 10.101.0.0/16
refused overlap 2 "init with overlapping --pod-cidr and --service-cidr"
grep -q "overlaps" "$work/overlap.err" && pass "the error says the ranges overlap" || fail "$(cat "$work/overlap.err")"
run overlap2 init --context c1 --pod-cidr 10.100.0.0/14
refused overlap2 2 "init --pod-cidr overlapping the discovered ServiceCIDR"
expect_eq "the refused inits changed nothing on c1" "$(labelled c1)" ""

run init init --context c1
[ "$(rc init)" = 0 ] && pass "init on c1" || fail "init: $(cat "$work/init.err")"
jp() { k "$1" get "${@:2:$#-2}" -o "jsonpath=${!#}" 2>/dev/null; }
fedcm() { jp "$1" -n kubectl-fed-system cm federation "{.data.$2}"; }
expect_eq "c1's federation ConfigMap: clusterID" "$(fedcm c1 clusterID)" c1
expect_eq "c1's federation ConfigMap: role" "$(fedcm c1 role)" host
expect_eq "c1's PodCIDR: smallest network of the nodes' /24s" "$(fedcm c1 podCIDR)" 10.241.0.0/23
expect_eq "c1's ServiceCIDR from the kubernetes ServiceCIDR" "$(fedcm c1 serviceCIDR)" 10.101.0.0/16
expect_eq "c1's gateway node" "$(k c1 get nodes -l kubectl-fed.io/gateway=true -o name)" node/node1
expect_eq "fed-manager's image" "$(jp c1 -n kubectl-fed-system deploy fed-manager '{.spec.template.spec.containers[0].image}')" fed.local/fed-agent:dev
eventually 120 "the federation etcd member (etcd's image, mTLS) is Ready on c1's gateway node" bash -c \
  "kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-etcd -o jsonpath='{range .items[*]}{.spec.nodeName} {.status.containerStatuses[0].ready}{\"\\n\"}{end}' | grep -qx 'node1 true'"
expect_eq "fed-agent is privileged" "$(jp c1 -n kubectl-fed-system ds fed-agent '{.spec.template.spec.containers[0].securityContext.privileged}')" true
expect_eq "objects applied by the field manager kubectl-fed" \
  "$(jp c1 clusterrole kubectl-fed:agent '{.metadata.managedFields[0].manager}')" kubectl-fed
before=$(labelled c1)
run init2 init --context c1
expect_eq "init again: exit code" "$(rc init2)" 0
grep -q "configured\|created" "$work/init2.out" && fail "init again wrote: $(cat "$work/init2.out")" || pass "init again: every object unchanged"
expect_eq "init again: every resourceVersion on c1 unchanged" "$(labelled c1)" "$before"

# --- the manager, as a process against c1, with the identity init gave it (fed-manager's
# token), so its RBAC and the virtual-node admission policy are what this test exercises.
manager_token=$(k c1 -n kubectl-fed-system create token fed-manager --duration=2h)
python3 - "$("$TESTBED" kubeconfig c1)" "$manager_token" >"$work/manager.kubeconfig" <<'PY'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
for u in cfg["users"]:
    u["user"] = {"token": sys.argv[2]}
print(yaml.safe_dump(cfg))
PY
"$AGENT" manager --kubeconfig "$work/manager.kubeconfig" --bind-address 127.0.0.1:19442 \
  --metrics-bind-address 127.0.0.1:0 \
  --webhook-bind-address 127.0.0.1:0 \
  >>"$work/manager.log" 2>&1 &
manager_pid=$!
trap 'rc=$?; echo "--- manager log"; tail -30 "$work/manager.log"; cleanup "$rc"' EXIT
eventually 30 "the manager is ready" curl -sf http://127.0.0.1:19442/readyz

# --- join refusals: nothing is written on either side.
host_before=$(labelled c1)
sed 's#server: https://127.0.0.1:16003#server: https://127.0.0.1:1#' "$("$TESTBED" kubeconfig c3)" >"$work/dead.kubeconfig"
run dead join c3 --context c1 --member-kubeconfig "$work/dead.kubeconfig"
refused dead 3 "join of an unreachable member"
run nocontext join c3 --context c1 --member-context no-such-context
refused nocontext 5 "join with a member context that does not exist"
k c3 create namespace kubectl-fed-system >/dev/null
k c3 -n kubectl-fed-system create configmap federation --from-literal=clusterID=c3 \
  --from-literal=role=member --from-literal=podCIDR=10.243.0.0/16 \
  --from-literal=serviceCIDR=10.103.0.0/16 --from-literal=federationID=elsewhere >/dev/null
run foreign join c3 --context c1 --member-context c3
refused foreign 2 "join of a member of another federation"
grep -q "federation elsewhere" "$work/foreign.err" && pass "the error names the other federation" || fail "$(cat "$work/foreign.err")"
expect_eq "refused joins: c3 holds only the test's own ConfigMap" "$(k c3 -n kubectl-fed-system get sa,secret,cm,role -o name | grep -v -e default -e kube-root-ca | paste -sd' ' -)" configmap/federation
k c3 delete namespace kubectl-fed-system --wait=true --timeout=120s >/dev/null
# A member credential without the rights join needs (a ServiceAccount bound to nothing).
k c3 -n default create serviceaccount fed-test-nobody >/dev/null
nobody_token=$(k c3 -n default create token fed-test-nobody --duration=10m)
python3 - "$("$TESTBED" kubeconfig c3)" "$nobody_token" >"$work/nobody.kubeconfig" <<'PY'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
for u in cfg["users"]:
    u["user"] = {"token": sys.argv[2]}
print(yaml.safe_dump(cfg))
PY
run nobody join c3 --context c1 --member-kubeconfig "$work/nobody.kubeconfig"
refused nobody 4 "join with a member credential that may not install anything"
expect_eq "the refused join wrote nothing on c3" "$(k c3 get ns kubectl-fed-system -o name --ignore-not-found; k c3 get crd -l app.kubernetes.io/part-of=kubectl-fed -o name)" ""
k c3 -n default delete serviceaccount fed-test-nobody >/dev/null
expect_eq "refused joins changed nothing on c1" "$(labelled c1)" "$host_before"

# --- join. No namespace cap (--namespace-quota 0): this test does not load the fed-agent image,
# so the tenancy role cannot run to answer a namespace webhook (datapath_test.sh checks it).
# The kubeconfig's server is the testbed's loopback port: join records the address c3's API
# server advertises instead, the one the host's pods reach, and says so (seen in a dry run: this
# test's manager is a process on this machine, which reaches c3 only at that loopback port, so
# the real join below gives it explicitly).
run joindry join c3 --context c1 --member-context c3 --dry-run=client -o json
expect_eq "join --dry-run: the FederatedCluster's endpoint is the one c3's API server advertises" \
  "$(jq -r '.items[] | select(.kind == "FederatedCluster") | .spec.apiEndpoint' "$work/joindry.out")" https://172.31.0.103:6443
grep -q "c3: the member kubeconfig's server https://127.0.0.1:16003 is this machine's loopback, which the host's pods cannot reach; using https://172.31.0.103:6443" "$work/joindry.err" &&
  pass "join says which endpoint it uses instead of the kubeconfig's loopback one" || fail "join's stderr: $(cat "$work/joindry.err")"
run join join c3 --context c1 --member-context c3 --member-api-endpoint https://127.0.0.1:16003 \
  --cluster-labels region=testbed --share-cpu 2 --share-memory 4Gi --namespace-quota 0
[ "$(rc join)" = 0 ] && pass "join c3" || fail "join: $(cat "$work/join.err")"
expect_eq "c3's federation ConfigMap: role" "$(fedcm c3 role)" member
expect_eq "c3's federation ConfigMap: federationID" "$(fedcm c3 federationID)" c1
expect_eq "c3's PodCIDR" "$(fedcm c3 podCIDR)" 10.243.0.0/23
expect_eq "FederatedCluster c3: endpoint" "$(jp c1 federatedcluster c3 '{.spec.apiEndpoint}')" https://127.0.0.1:16003
expect_eq "FederatedCluster c3: labels" "$(jp c1 federatedcluster c3 '{.spec.clusterLabels.region}')" testbed
expect_eq "FederatedCluster c3: offered memory" "$(jp c1 federatedcluster c3 '{.spec.offered.memory}')" 4Gi
expect_eq "credential Secret type" "$(jp c1 -n kubectl-fed-system secret member-c3 '{.type}')" kubectl-fed.io/member-credential
expect_eq "no FederatedCluster CRD on the member" "$(k c3 get crd federatedclusters.fed.kubectl-fed.io -o name --ignore-not-found)" ""
nr() { [ "$(jp c1 federatedcluster c3 '{.status.conditions[?(@.type=="NetworkReady")].status}')" = True ]; }
eventually 90 "the manager exchanged networks with c3 through the federation's identity" nr
expect_eq "the member's Peering was written with that identity" "$(jp c3 peering c1 '{.spec.peerPodCIDR}')" 10.241.0.0/23

# --- c3's virtual node on c1 (docs/OFFLOAD.md): labels, taint, offer, readiness, heartbeat.
vn=kubectl-fed-c3
eventually 30 "the manager registered virtual node $vn on c1" k c1 get node $vn
expect_eq "virtual node: type label" "$(jp c1 node $vn '{.metadata.labels.kubectl-fed\.io/type}')" virtual-node
expect_eq "virtual node: cluster-id label" "$(jp c1 node $vn '{.metadata.labels.kubectl-fed\.io/cluster-id}')" c3
expect_eq "virtual node: the member's cluster label" "$(jp c1 node $vn '{.metadata.labels.region}')" testbed
expect_eq "virtual node: the taint only opted-in pods tolerate" \
  "$(jp c1 node $vn '{.spec.taints[?(@.key=="virtual-node.kubectl-fed.io/not-allowed")].effect}')" NoExecute
expect_eq "virtual node: cpu capacity = the offer" "$(jp c1 node $vn '{.status.capacity.cpu}')" 2
expect_eq "virtual node: memory allocatable = the offer" "$(jp c1 node $vn '{.status.allocatable.memory}')" 4Gi
expect_eq "virtual node: not Ready while the tunnel is down (no gateways in this test)" \
  "$(jp c1 node $vn '{.status.conditions[?(@.type=="Ready")].status}')" False
renewed=$(jp c1 -n kube-node-lease lease $vn '{.spec.renewTime}')
[ -n "$renewed" ] && pass "virtual node: Lease kube-node-lease/$vn exists" || fail "no Lease for $vn"
eventually 25 "virtual node: the manager renews the Lease" \
  bash -c "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n kube-node-lease get lease $vn -o jsonpath='{.spec.renewTime}')\" != '$renewed' ]"
vn_uid=$(jp c1 node $vn '{.metadata.uid}')
k c1 delete node $vn >/dev/null
eventually 30 "virtual node: deleted by hand, registered again" \
  bash -c "uid=\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get node $vn -o jsonpath='{.metadata.uid}') && [ -n \"\$uid\" ] && [ \"\$uid\" != $vn_uid ]"
# The manager's Node rights reach virtual nodes only (the ValidatingAdmissionPolicy).
as_manager=(--as=system:serviceaccount:kubectl-fed-system:fed-manager)
k c1 label node node2 kubectl-fed.io/type=virtual-node "${as_manager[@]}" >"$work/vap1.out" 2>&1 \
  && fail "the manager's identity turned real node2 into a virtual node" \
  || { grep -q "only virtual nodes" "$work/vap1.out" && pass "the manager's identity may not relabel real node2: $(tail -1 "$work/vap1.out" | cut -c1-120)" || fail "unexpected: $(cat "$work/vap1.out")"; }
k c1 delete node node2 --dry-run=server "${as_manager[@]}" >"$work/vap2.out" 2>&1 \
  && fail "the manager's identity may delete real node2" \
  || { grep -q "only virtual nodes" "$work/vap2.out" && pass "the manager's identity may not delete real node2" || fail "unexpected: $(cat "$work/vap2.out")"; }
k c1 label node $vn fed-test=yes "${as_manager[@]}" >/dev/null 2>&1 && pass "the manager's identity may label its virtual node" || fail "the manager's identity may not label $vn"
k c1 label node $vn fed-test- >/dev/null

# --- offloading (docs/OFFLOAD.md): a NamespaceOffloading on c1 replicates its namespace on the
# members its clusterSelector picks, through the federation's identity there.
offl() { k c1 -n "$1" get namespaceoffloading offloading -o "jsonpath=$2" 2>/dev/null; }
phase_is() { [ "$(offl "$1" '{.status.offloadingPhase}')" = "$2" ]; }
ns_on_c3() { k c3 get namespace "$1" -o name --ignore-not-found 2>/dev/null; }
k c1 create namespace shop >/dev/null
# Bad input: refused before anything is written, naming the flag.
run offbad1 offload namespace shop --context c1 --pod-offloading-strategy Everywhere
refused offbad1 2 "offload with an unknown --pod-offloading-strategy"
run offbad2 offload namespace shop --context c1 --selector 'region in (eu'
refused offbad2 2 "offload with a malformed --selector"
run offbad3 offload namespace "$(printf 'a%.0s' $(seq 61))" --context c1
refused offbad3 2 "offload of a 61-character namespace under DefaultName (64 with -c1)"
grep -q "63" "$work/offbad3.err" && pass "the error gives the 63-character limit" || fail "$(cat "$work/offbad3.err")"
run offbad4 offload namespace nowhere --context c1
refused offbad4 5 "offload of a namespace that does not exist"
# A dry run checks what the real run checks; it only writes nothing.
run offbad5 offload namespace nowhere --context c1 --dry-run=client
refused offbad5 5 "offload --dry-run=client of a namespace that does not exist"
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  replicas: %s\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec: {containers: [{name: api, image: fed.local/busybox:1}]}\n' 1 >"$work/api.yaml"
sed 's/replicas: 1/replicas: -3/' "$work/api.yaml" >"$work/api-neg.yaml"
run repbad1 replicate api -n nowhere --context c1 --dry-run=client -f "$work/api.yaml"
refused repbad1 5 "replicate --dry-run=client into a namespace that does not exist"
run repbad2 replicate api -n shop --context c1 --dry-run=client -f "$work/api-neg.yaml"
refused repbad2 2 "replicate --dry-run=client of replicas: -3"
grep -q 'spec.replicas' "$work/repbad2.err" && pass "replicas: -3 is named: $(cat "$work/repbad2.err")" ||
  fail "replicas: -3 not named: $(cat "$work/repbad2.err")"
expect_eq "refused offloads created nothing" "$(k c1 get namespaceoffloadings -A -o name)" ""
# Written around the plugin, a spec the manager cannot offload: it says why in an Event.
long=$(printf 'b%.0s' $(seq 61))
k c1 create namespace "$long" >/dev/null
k c1 -n "$long" apply -f - >/dev/null <<YAML
apiVersion: fed.kubectl-fed.io/v1alpha1
kind: NamespaceOffloading
metadata: {name: offloading}
spec: {}
YAML
eventually 30 "a NamespaceOffloading the manager cannot offload gets a Warning SpecRefused Event naming the limit" bash -c \
  "kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n $long get events --field-selector reason=SpecRefused,involvedObject.kind=NamespaceOffloading -o jsonpath='{.items[*].message}' | grep -q 63"
eventually 30 "... and its status says it was refused (Accepted False, SpecRefused), not only NoClusterSelected" bash -c \
  "kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n $long get namespaceoffloading offloading -o jsonpath='{.status.conditions[?(@.type==\"Accepted\")].status} {.status.conditions[?(@.type==\"Accepted\")].reason} {.status.conditions[?(@.type==\"Accepted\")].message}' | grep -q '^False SpecRefused .*63'"
k c1 -n "$long" delete namespaceoffloading offloading --timeout=30s >/dev/null
k c1 delete namespace "$long" --wait=false >/dev/null
run offload offload namespace shop --context c1 --wait --timeout 60s -o json
expect_eq "offload namespace shop --wait: exit code" "$(rc offload)" 0
expect_eq "offload -o json: result, phase, remote name" "$(jq -r '[.result, .phase, .remoteNamespace] | join(" ")' "$work/offload.out")" "offloaded Ready shop-c1"
run offload2 offload namespace shop --context c1 -o json
expect_eq "offload again: alreadyOffloaded" "$(jq -r .result "$work/offload2.out")" alreadyOffloaded
run offstatus status --context c1 -o json
expect_eq "status -o json: shop offloaded, c3's replica Ready" \
  "$(jq -r '.offloadings[] | select(.namespace == "shop") | .phase + " " + .remoteNamespace + " " + .clusters.c3.ready' "$work/offstatus.out")" "Ready shop-c1 True"
eventually 30 "offload shop (defaults): offloadingPhase Ready" phase_is shop Ready
expect_eq "offload shop: remote name DefaultName shop-c1" "$(offl shop '{.status.remoteNamespaceName}')" shop-c1
expect_eq "offload shop: NamespaceMap c3 desiredMapping" "$(jp c1 namespacemap c3 '{.spec.desiredMapping.shop}')" shop-c1
expect_eq "offload shop: NamespaceMap c3 currentMapping phase" "$(jp c1 namespacemap c3 '{.status.currentMapping.shop.phase}')" Accepted
expect_eq "offload shop: c3's conditions Ready/OffloadingRequired" \
  "$(offl shop '{.status.remoteNamespacesConditions.c3[?(@.type=="Ready")].status}/{.status.remoteNamespacesConditions.c3[?(@.type=="OffloadingRequired")].status}')" True/True
expect_eq "offload shop: the replica on c3 names its origin" \
  "$(jp c3 namespace shop-c1 '{.metadata.labels.kubectl-fed\.io/origin-cluster}/{.metadata.labels.kubectl-fed\.io/origin-namespace}')" c1/shop
k c3 delete namespace shop-c1 --timeout=90s >/dev/null
eventually 60 "offload shop: the replica deleted by hand on c3 is made again" bash -c \
  "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) get namespace shop-c1 -o jsonpath='{.status.phase}')\" = Active ]"
as_federation=(--as=system:serviceaccount:kubectl-fed-system:fed-federation)
k c3 create namespace c3-own >/dev/null
k c3 delete namespace c3-own --dry-run=server "${as_federation[@]}" >"$work/vap3.out" 2>&1 \
  && fail "the federation's identity may delete c3's own namespace c3-own" \
  || { grep -q "only the replicas" "$work/vap3.out" && pass "the federation's identity may not delete c3's own namespace c3-own" || fail "unexpected: $(cat "$work/vap3.out")"; }
k c3 create namespace sneaky --dry-run=server "${as_federation[@]}" >"$work/vap4.out" 2>&1 \
  && fail "the federation's identity may create a namespace that is not a replica" \
  || { grep -q "only the replicas" "$work/vap4.out" && pass "the federation's identity may not create an unlabelled namespace" || fail "unexpected: $(cat "$work/vap4.out")"; }
k c3 delete namespace c3-own --wait=false >/dev/null
run offnone offload namespace shop --context c1 --selector 'region notin (testbed)' -o json
expect_eq "offload with a selector no virtual node matches: updated, with a warning" \
  "$(rc offnone) $(jq -r '.result + " " + (.warnings | length | tostring)' "$work/offnone.out")" "0 updated 1"
grep -q "warning: no virtual node matches the cluster selector" "$work/offnone.err" \
  && pass "the warning on stderr: $(cut -c1-100 "$work/offnone.err")" || fail "no warning: $(cat "$work/offnone.err")"
eventually 60 "offload shop: a selector no member matches gives NoClusterSelected" phase_is shop NoClusterSelected
eventually 90 "offload shop: ... and the replica leaves c3" bash -c "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) get namespace shop-c1 -o name --ignore-not-found)\" ]"
k c1 -n shop patch namespaceoffloading offloading --type=merge \
  -p '{"spec":{"clusterSelector":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"region","operator":"In","values":["testbed"]},{"key":"kubectl-fed.io/type","operator":"In","values":["virtual-node"]}]}]}}}' >/dev/null
eventually 60 "offload shop: region In [testbed] selects c3 again" phase_is shop Ready
run unoffload unoffload namespace shop --context c1 --wait --timeout 90s -o json
expect_eq "unoffload namespace shop --wait: exit code and result" "$(rc unoffload) $(jq -r .result "$work/unoffload.out")" "0 unoffloaded"
expect_eq "unoffload shop: the NamespaceOffloading is gone" "$(k c1 -n shop get namespaceoffloading -o name)" ""
expect_eq "unoffload shop: no replica on c3" "$(ns_on_c3 shop-c1)" ""
expect_eq "unoffload shop: NamespaceMap c3 holds nothing for shop" "$(jp c1 namespacemap c3 '{.spec.desiredMapping.shop}{.status.currentMapping.shop}')" ""
# The label shortcut: a default offloading for a namespace labelled kubectl-fed.io/enabled=true.
k c1 create namespace auto >/dev/null
k c1 label namespace auto kubectl-fed.io/enabled=true >/dev/null
eventually 30 "label kubectl-fed.io/enabled=true: a default offloading, Ready" phase_is auto Ready
expect_eq "label shortcut: replica auto-c1 on c3" "$(ns_on_c3 auto-c1)" namespace/auto-c1
k c1 label namespace auto kubectl-fed.io/enabled- >/dev/null
k c1 -n auto delete namespaceoffloading offloading --timeout=90s >/dev/null
eventually 60 "label removed and offloading deleted: replica auto-c1 gone" bash -c "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) get namespace auto-c1 -o name --ignore-not-found)\" ]"
k c1 delete namespace shop auto --wait=false >/dev/null

# The federation's identity on c3: exactly the rules docs/JOIN.md lists (plus what every
# authenticated user may do: self reviews and discovery URLs).
k c3 auth can-i --list -n kubectl-fed-system --as=system:serviceaccount:kubectl-fed-system:fed-federation \
  | awk 'NR > 1 && $1 !~ /^(selfsubject|\[)/ && $2 == "[]" {
      line = $1; for (i = 3; i <= NF; i++) line = line " " $i; print line }' | sort >"$work/rules"
cat >"$work/rules.want" <<'RULES'
clusterroles.rbac.authorization.k8s.io [kubectl-fed:federation-replica] [bind]
configmaps [] [get list watch]
ipamblocks.fed.kubectl-fed.io [] [get list watch create update patch delete]
ipamstates.fed.kubectl-fed.io [] [get list watch create update patch delete]
namespaces [] [get list watch create delete]
natmappings.fed.kubectl-fed.io [] [get list watch create update patch delete]
nodes [] [get list watch]
peerings.fed.kubectl-fed.io [] [get list watch create update patch delete]
peerings.fed.kubectl-fed.io/status [] [get patch update]
rolebindings.rbac.authorization.k8s.io [] [get create]
RULES
sort -o "$work/rules.want" "$work/rules.want"
diff "$work/rules.want" "$work/rules" >"$work/rules.diff" && pass "auth can-i --list for fed-federation on c3: exactly the expected rules" \
  || fail "fed-federation's rules differ: $(cat "$work/rules.diff")"
expect_eq "fed-federation may not read Secrets" "$(k c3 auth can-i get secrets -n kube-system --as=system:serviceaccount:kubectl-fed-system:fed-federation 2>/dev/null)" no
expect_eq "fed-federation may not create pods" "$(k c3 auth can-i create pods --as=system:serviceaccount:kubectl-fed-system:fed-federation 2>/dev/null)" no

# --- join again: "already joined", nothing written.
sleep 3  # the manager settles (finalizer, tunnel address, status)
member_before=$(labelled c3 | grep -v -e '^Peering/' -e '^IpamState/' -e '^NatMapping/')
secret_before=$(jp c1 -n kubectl-fed-system secret member-c3 '{.metadata.resourceVersion}')
gen_before=$(jp c1 federatedcluster c3 '{.metadata.generation}')
run again join c3 --context c1 --member-context c3 --member-api-endpoint https://127.0.0.1:16003 --cluster-labels region=testbed --share-cpu 2 --share-memory 4Gi --namespace-quota 0
expect_eq "join again: exit code" "$(rc again)" 0
grep -q "already joined" "$work/again.out" && pass "join again says already joined" || fail "join again: $(cat "$work/again.out")"
expect_eq "join again: resourceVersions on c3 unchanged" "$(labelled c3 | grep -v -e '^Peering/' -e '^IpamState/' -e '^NatMapping/')" "$member_before"
expect_eq "join again: credential Secret unchanged" "$(jp c1 -n kubectl-fed-system secret member-c3 '{.metadata.resourceVersion}')" "$secret_before"
expect_eq "join again: FederatedCluster spec unchanged (generation)" "$(jp c1 federatedcluster c3 '{.metadata.generation}')" "$gen_before"
run againjson join c3 --context c1 --member-context c3 --member-api-endpoint https://127.0.0.1:16003 --cluster-labels region=testbed --share-cpu 2 --share-memory 4Gi --namespace-quota 0 -o json
expect_eq "join -o json: result" "$(jq -r .result "$work/againjson.out")" alreadyJoined

# --wait with no gateway agents running: times out naming the condition that is not True.
run wait join c3 --context c1 --member-context c3 --member-api-endpoint https://127.0.0.1:16003 --cluster-labels region=testbed --share-cpu 2 --share-memory 4Gi --namespace-quota 0 --wait --timeout 4s -o json
refused wait 3 "join --wait without gateways"
grep -q "condition TunnelReady is False" "$work/wait.err" && pass "the timeout names TunnelReady" || fail "$(cat "$work/wait.err")"

# --- status.
run status status --context c1 -o json
expect_eq "status -o json: the member" "$(jq -r '.members[0].name' "$work/status.out")" c3
expect_eq "status -o json: NetworkReady" "$(jq -r '.members[0].conditions[] | select(.type=="NetworkReady") | .status' "$work/status.out")" True
run statust status --context c1
grep -q "^c3 " "$work/statust.out" && pass "status table lists c3" || fail "$(cat "$work/statust.out")"

# --- reconfigure over the federation's members (membership_reconfigure_checks.sh).
source "$(dirname "$0")/membership_reconfigure_checks.sh"

# --- an API endpoint the manager cannot reach: join --wait stops as soon as the manager reports
# it, with its reason, instead of waiting out --timeout; the right endpoint given again heals it.
t0=$SECONDS
run badep join c3 --context c1 --member-context c3 --member-api-endpoint https://127.0.0.1:1 --cluster-labels region=testbed --share-cpu 2 --share-memory 4Gi --namespace-quota 0 --wait --timeout 3m
refused badep 3 "join --wait with an endpoint the manager cannot reach"
grep -q "member c3 cannot be peered: the manager reports MemberUnreachable: .*(API endpoint https://127.0.0.1:1: the host's pods must reach it" "$work/badep.err" &&
  pass "it names the manager's reason, after $((SECONDS - t0)) s of a 3 min --timeout: $(head -c 200 "$work/badep.err")" || fail "$(cat "$work/badep.err")"
run goodep join c3 --context c1 --member-context c3 --member-api-endpoint https://127.0.0.1:16003 --cluster-labels region=testbed --share-cpu 2 --share-memory 4Gi --namespace-quota 0 -o json
expect_eq "join with the endpoint corrected: result" "$(jq -r .result "$work/goodep.out")" updated
eventually 60 "c3's NetworkReady True again" bash -c \
  "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get federatedcluster c3 -o jsonpath='{.status.conditions[?(@.type==\"NetworkReady\")].status}')\" = True ]"

# --- unjoin: the manager tears the peering down, the member is left with nothing of ours.
run unjoin unjoin c3 --context c1 --member-context c3
[ "$(rc unjoin)" = 0 ] && pass "unjoin c3" || fail "unjoin: $(cat "$work/unjoin.err")"
expect_eq "FederatedCluster c3 gone" "$(k c1 get federatedcluster c3 -o name --ignore-not-found)" ""
expect_eq "credential Secret gone" "$(k c1 -n kubectl-fed-system get secret member-c3 -o name --ignore-not-found)" ""
expect_eq "host's Peering c3 gone" "$(k c1 get peering c3 -o name --ignore-not-found)" ""
eventually 30 "virtual node $vn gone" bash -c "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get node $vn -o name --ignore-not-found)\" ]"
expect_eq "virtual node's Lease gone" "$(k c1 -n kube-node-lease get lease $vn -o name --ignore-not-found)" ""
DERIVED='[]'
expect_eq "c3 holds nothing labelled $SEL" "$(labelled c3)" ""
expect_eq "c3 has no gateway label" "$(k c3 get nodes -l kubectl-fed.io/gateway -o name)" ""
# The manager stops on SIGTERM; built with sanitizers (scripts/sanitize asan|tsan), its log is where
# a report (a leak at exit among them) would be.
kill "$manager_pid"
set +e; wait "$manager_pid"; manager_rc=$?; set -e
manager_pid=""
expect_eq "the manager exits 0 on SIGTERM" "$manager_rc" 0
report=$(grep -m1 -E 'ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:' "$work/manager.log" || true)
[ -z "$report" ] && pass "no sanitizer report in the manager's log" || fail "the manager's log holds a sanitizer report: $report"
trap cleanup EXIT
finish
