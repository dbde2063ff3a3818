# Sourced by reconfigure_test.sh (c2, its `fed`, `k`, `jq_`, $IMAGE, $work): the PodPreset
# feature (seed 003 tactic T1). `reconfigure --set podPreset=true` installs the CRD and the
# webhook and waits until Ready; a pod created afterwards in a namespace with a matching preset
# runs with the preset's env and volume (read inside the real container), a pod the selector
# does not match gets nothing, a pod whose env conflicts is admitted untouched with a warning;
# a second run writes nothing; the webhook's identity cannot read pods. Removed at the end.
PP_NS=podpreset-e2e

podpreset_restore() {
  k c2 delete namespace $PP_NS --ignore-not-found --wait=false
  k c2 delete mutatingwebhookconfiguration kubectl-fed-podpreset --ignore-not-found
  k c2 delete crd podpresets.settings.kubectl-fed.io --ignore-not-found
  k c2 delete clusterrolebinding,clusterrole kubectl-fed:podpreset --ignore-not-found
  k c2 delete clusterrole kubectl-fed:podpreset-edit --ignore-not-found
  k c2 -n kubectl-fed-system delete deployment/fed-podpreset service/fed-podpreset-webhook \
    serviceaccount/fed-podpreset role/kubectl-fed:podpreset rolebinding/kubectl-fed:podpreset \
    secret/fed-podpreset-webhook-tls --ignore-not-found
}

rc=0; fed reconfigure --set podPreset=true --image "$IMAGE" -o json >"$work/pp.json" 2>"$work/pp.err" || rc=$?
cat "$work/pp.json" "$work/pp.err"
expect_eq "podPreset: reconfigure exits 0" "$rc" 0
expect_eq "podPreset: the feature is Applied, no node touched" \
  "$(jq_ 'd["clusters"][0]["features"][0]["result"] + "/" + str(len(d["clusters"][0]["nodes"]))' <"$work/pp.json")" \
  "Applied/0"
echo "# podPreset on c2 was Ready after $(jq_ 'd["clusters"][0]["features"][0]["seconds"]' <"$work/pp.json") s"
fed reconfigure status -o json >"$work/pp-status.json"
expect_eq "podPreset: status shows it installed and Ready" \
  "$(jq_ '[f for f in d["clusters"][0]["features"] if f["name"] == "podPreset"][0]["ready"]' <"$work/pp-status.json")" True
k c2 api-resources --api-group settings.kubectl-fed.io -o name | grep -qx podpresets.settings.kubectl-fed.io &&
  pass "podPreset: podpresets are in discovery" || fail "podpresets not in discovery"

k c2 create namespace $PP_NS >/dev/null
k c2 -n $PP_NS apply -f - >/dev/null <<'YAML'
apiVersion: settings.kubectl-fed.io/v1alpha1
kind: PodPreset
metadata: {name: db}
spec:
  selector: {matchLabels: {app: web}}
  env:
    - {name: DB_HOST, value: db.shop.svc}
  volumes:
    - {name: cache, emptyDir: {}}
  volumeMounts:
    - {name: cache, mountPath: /cache}
YAML
pod_yaml() { # name label [env value]
  local env=""
  [ $# -ge 3 ] && env="
      env: [{name: DB_HOST, value: $3}]"
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: $2}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: fed.local/busybox:1
      command: [sleep, "600"]$env
YAML
}
# The webhook learns of the preset through its watch, a moment after the create: ask with
# server-side dry runs (nothing is created) until it answers with the preset.
pod_yaml web web >"$work/web.yaml"
eventually 30 "podPreset: the webhook knows the preset (server-side dry run)" bash -c \
  "kubectl --kubeconfig $("$TESTBED" kubeconfig c2) -n $PP_NS create --dry-run=server -f $work/web.yaml -o jsonpath='{.metadata.annotations}' | grep -q podpreset-db"
k c2 -n $PP_NS create -f "$work/web.yaml" >/dev/null
expect_eq "podPreset: the created pod records the preset's resourceVersion" \
  "$(k c2 -n $PP_NS get pod web -o jsonpath='{.metadata.annotations.podpreset\.admission\.kubernetes\.io/podpreset-db}')" \
  "$(k c2 -n $PP_NS get podpreset db -o jsonpath='{.metadata.resourceVersion}')"
pod_yaml other db | k c2 -n $PP_NS create -f - >/dev/null
pod_yaml mine web mine | k c2 -n $PP_NS create -f - >/dev/null 2>"$work/pp-conflict.err"
grep -q 'no PodPreset applied: PodPreset db: env DB_HOST of container main is defined differently' \
  "$work/pp-conflict.err" && pass "podPreset: the conflicting pod's creator is warned" ||
  fail "no conflict warning: $(cat "$work/pp-conflict.err")"
for p in web other mine; do
  eventually 90 "podPreset: pod $p runs" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c2) -n $PP_NS get pod $p -o jsonpath='{.status.phase}')\" = Running ]"
done
expect_eq "podPreset: the container of web sees the env and the mount" \
  "$(k c2 -n $PP_NS exec web -- sh -c 'echo "$DB_HOST"; grep -c " /cache " /proc/mounts')" \
  "db.shop.svc
1"
expect_eq "podPreset: the unmatched pod has neither" \
  "$(k c2 -n $PP_NS exec other -- sh -c 'echo "${DB_HOST:-none}"; grep -c " /cache " /proc/mounts || true')" \
  "none
0"
expect_eq "podPreset: the conflicting pod keeps its own value and gets no volume" \
  "$(k c2 -n $PP_NS exec mine -- sh -c 'echo "$DB_HOST"; grep -c " /cache " /proc/mounts || true')" \
  "mine
0"

rc=0; fed reconfigure --set podPreset=true --image "$IMAGE" -o json >"$work/pp2.json" 2>/dev/null || rc=$?
expect_eq "podPreset: a second run writes nothing" \
  "$rc/$(jq_ 'd["clusters"][0]["features"][0]["result"]' <"$work/pp2.json")" "0/AlreadyApplied"
sa=system:serviceaccount:kubectl-fed-system:fed-podpreset
expect_eq "podPreset: the webhook's identity cannot list pods" \
  "$(k c2 auth can-i list pods --as $sa 2>/dev/null || true)" no
expect_eq "podPreset: it can watch podpresets" "$(k c2 auth can-i watch podpresets.settings.kubectl-fed.io --as $sa)" yes
podpreset_restore
