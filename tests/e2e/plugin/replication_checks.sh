# Deployment replication (docs/OFFLOAD.md), sourced by datapath_test.sh: `shop` is offloaded to
# c2 (region=eu, provider=a) and c3 (region=eu, provider=b), strategy Remote. `kubectl fed
# replicate` makes one replica Deployment per member, whose pods run as real containers there;
# a replica deleted by hand comes back; region granularity makes one replica for both members;
# provider granularity with a filter excluding provider b, one pinned to c2; the manager cannot
# touch a user's Deployment; `unreplicate` removes every replica.

# replica_nodes: "NODE/PHASE ..." of the replicas' pods on c1, sorted.
replica_nodes() {
  k c1 -n shop get pods -l app=rep -o jsonpath='{range .items[*]}{.spec.nodeName}/{.status.phase} {end}' |
    tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' '
}

# replica_status JQ: the DeploymentReplication's status through a jq program.
replica_status() {
  k c1 -n shop get deploymentreplication rep -o json | jq -r "$1"
}

replication() {
  local mode=$1 manager=system:serviceaccount:kubectl-fed-system:fed-manager
  cat >"$work/rep.yaml" <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: rep, labels: {app: rep}}
spec:
  replicas: 1
  selector: {matchLabels: {app: rep}}
  template:
    metadata: {labels: {app: rep}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: probe
          image: $IMAGE
          command: [/usr/local/bin/fed-agent, probe, --listen, "7949", --id, rep, --for, 600s]
YAML
  # No generation label: one replica per member, each pinned to its member's virtual node.
  ok_run rep1 replicate rep -n shop --context c1 -f "$work/rep.yaml" --wait --timeout 120s -o json
  expect_eq "$mode: replicate: one replica per member, each Ready" \
    "$(replica_status '[.status.currentDeployment[] | .generationLabelsValues["kubectl-fed.io/cluster-id"] + "/" + .deploymentLastCondition.type + "=" + .deploymentLastCondition.status] | sort | join(" ")')" \
    "c2/Available=True c3/Available=True"
  expect_eq "$mode: replicate: two Deployments on c1, owned by the replication" \
    "$(k c1 -n shop get deploy -l kubectl-fed.io/replica-of=rep -o json | jq -r '[.items[].metadata.ownerReferences[0].kind] | join(",")')" \
    "DeploymentReplication,DeploymentReplication"
  eventually 90 "$mode: replicate: a pod of rep Running on each member's virtual node" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pods -l app=rep -o jsonpath='{range .items[*]}{.spec.nodeName}/{.status.phase} {end}' | tr ' ' '\\n' | sed '/^\$/d' | sort | tr '\\n' ' ')\" = 'kubectl-fed-c2/Running kubectl-fed-c3/Running ' ]"
  local c
  for c in c2 c3; do
    expect_eq "$mode: replicate: the twin of rep's pod runs on a real node of $c" \
      "$(k "$c" -n shop-c1 get pods -l app=rep -o jsonpath='{range .items[*]}{.spec.nodeName}/{.status.phase}{end}' | sed 's/^node[12]/node/')" "node/Running"
  done
  # A replica deleted by hand is made again (under another generated name).
  local victim
  victim=$(replica_status '.status.currentDeployment | to_entries[] | select(.value.generationLabelsValues["kubectl-fed.io/cluster-id"] == "c3") | .key')
  k c1 -n shop delete deployment "$victim" --wait=false >/dev/null
  eventually 60 "$mode: replicate: the replica $victim deleted by hand is replaced" bash -c \
    "kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get deploymentreplication rep -o json | jq -e '.status.currentDeployment | to_entries | map(select(.value.generationLabelsValues[\"kubectl-fed.io/cluster-id\"] == \"c3\" and .key != \"$victim\")) | length == 1' >/dev/null"
  # Region granularity: c2 and c3 are both in eu, so one replica stands for both (Fig. 7.2).
  ok_run rep2 replicate rep -n shop --context c1 -f "$work/rep.yaml" --generation-label region --wait --timeout 120s -o json
  expect_eq "$mode: replicate --generation-label region: one replica, for region eu" \
    "$(replica_status '[.status.currentDeployment[] | .generationLabelsValues | to_entries[] | .key + "=" + .value] | join(" ")')" "region=eu"
  eventually 60 "$mode: replicate --generation-label region: the per-member replicas are gone" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get deploy -l kubectl-fed.io/replica-of=rep -o name | wc -l)\" = 1 ]"
  # Provider granularity, provider b (c3) excluded: one replica, its pod on c2.
  ok_run rep3 replicate rep -n shop --context c1 -f "$work/rep.yaml" --generation-label provider \
    --selector 'provider notin (b)' --wait --timeout 120s -o json
  expect_eq "$mode: replicate --selector 'provider notin (b)': one replica, for provider a" \
    "$(replica_status '[.status.currentDeployment[] | .generationLabelsValues | to_entries[] | .key + "=" + .value] | join(" ")')" "provider=a"
  eventually 90 "$mode: replicate --selector: rep's only pod runs on c2's virtual node" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pods -l app=rep -o jsonpath='{range .items[*]}{.spec.nodeName}/{.status.phase} {end}')\" = 'kubectl-fed-c2/Running ' ]"
  # The manager's Deployment rights stop at replicas (manifests/manager/replicas-policy.yaml).
  k c1 -n shop create deployment mine --replicas 0 --image "$IMAGE" >/dev/null
  k c1 -n shop delete deployment mine --as "$manager" >"$work/mine.out" 2>&1 \
    && fail "$mode: the manager deleted a user's Deployment" \
    || { grep -q "only the replicas" "$work/mine.out" && pass "$mode: the manager may not delete a user's Deployment" || fail "unexpected: $(cat "$work/mine.out")"; }
  k c1 -n shop delete deployment mine >/dev/null
  ok_run unrep unreplicate rep -n shop --context c1 --wait --timeout 90s -o json
  expect_eq "$mode: unreplicate: no replica and no DeploymentReplication left" \
    "$(k c1 -n shop get deploy,deploymentreplication -l kubectl-fed.io/replica-of=rep -o name)$(k c1 -n shop get deploymentreplication -o name)" ""
  eventually 60 "$mode: unreplicate: rep's pods are gone" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pods -l app=rep -o name)\" ]"
}
