# shellcheck shell=bash
# Sourced by membership_test.sh (c1 the host, c3 its member; `run`, `refused`, `rc`, `k`, `jp`,
# $work, $TESTBED, $AGENT): kubectl fed reconfigure over the federation's members.
# --- reconfigure over the federation's members: --clusters and a FeatureConfig's
# clusterSelector pick c3 by its cluster label on the host c1, which records the FeatureConfig
# with what c3 got; podPreset=false takes the feature out again, not while PodPresets exist.
IMAGE=fed.local/fed-agent:membership-e2e   # the PodPreset webhook's image; not :dev (the agent)
"$TESTBED" agent-image "$IMAGE" "$AGENT" >/dev/null
run rcnone reconfigure --context c1 --clusters region=elsewhere --set podPreset=true --image "$IMAGE"
refused rcnone 5 "reconfigure --clusters matching no member"
grep -q 'members: c3 {region=testbed}' "$work/rcnone.err" && pass "the refusal lists the members and their labels" \
  || fail "$(cat "$work/rcnone.err")"
expect_eq "no member matched: nothing installed on c3" "$(k c3 get crd podpresets.settings.kubectl-fed.io -o name --ignore-not-found)" ""
run rctwo reconfigure --context c1 --context c3 --clusters all --set podPreset=true
refused rctwo 2 "reconfigure --clusters with two --context"
cat >"$work/features.yaml" <<'YAML'
apiVersion: fed.kubectl-fed.io/v1alpha1
kind: FeatureConfig
metadata: {name: testbed-presets}
spec:
  clusterSelector: region=testbed
  podPreset: true
YAML
run rcfc reconfigure --context c1 -f "$work/features.yaml" --image "$IMAGE" -o json
expect_eq "reconfigure -f (clusterSelector region=testbed): exit code" "$(rc rcfc)" 0
expect_eq "the run targeted c3 only, the feature Applied" "$(jq -r '[.clusters[] | .context + ":" + (.features[0].result)] | join(" ")' "$work/rcfc.out")" "c3:Applied"
eventually 30 "c3 serves the PodPreset API" bash -c "kubectl --kubeconfig $("$TESTBED" kubeconfig c3) get podpresets -A >/dev/null 2>&1"
expect_eq "the host c1 did not get the feature" "$(k c1 get crd podpresets.settings.kubectl-fed.io -o name --ignore-not-found)" ""
expect_eq "FeatureConfig recorded on c1: phase, applied clusters, member, generation" \
  "$(jp c1 featureconfig testbed-presets '{.status.phase} {.status.appliedClusters} {.status.clusters[0].name} {.status.observedGeneration}')" "Applied 1 c3 1"
expect_eq "FeatureConfig's Applied condition" "$(jp c1 featureconfig testbed-presets '{.status.conditions[?(@.type=="Applied")].status}')" True
expect_eq "FeatureConfig keeps the spec as given" "$(jp c1 featureconfig testbed-presets '{.spec.clusterSelector} {.spec.podPreset}')" "region=testbed true"
run rcstat reconfigure status --context c1 --clusters region=testbed -o json
expect_eq "reconfigure status --clusters: c3's podPreset Ready" "$(jq -r '.clusters[] | .context + ":" + ([.features[] | select(.name=="podPreset") | .ready] | tostring)' "$work/rcstat.out")" "c3:[true]"
# Removing the feature while a PodPreset exists would delete it with the CRD: refused.
k c3 apply -f - >/dev/null <<'YAML'
apiVersion: settings.kubectl-fed.io/v1alpha1
kind: PodPreset
metadata: {name: keep-me, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  env: [{name: A, value: b}]
YAML
run rcoff reconfigure --context c1 --clusters region=testbed --set podPreset=false -o json
expect_eq "podPreset=false with a PodPreset left: exit code" "$(rc rcoff)" 1
grep -q '1 podpresets exist' "$work/rcoff.out" && pass "the refusal counts the PodPresets and says to delete them first" \
  || fail "$(cat "$work/rcoff.out" "$work/rcoff.err")"
expect_eq "the PodPreset and its API are still there" "$(k c3 -n default get podpreset keep-me -o name)" "podpreset.settings.kubectl-fed.io/keep-me"
k c3 -n default delete podpreset keep-me >/dev/null
run rcoff2 reconfigure --context c1 --clusters region=testbed --set podPreset=false -o json
expect_eq "podPreset=false: exit code" "$(rc rcoff2)" 0
expect_eq "podPreset=false: Removed on c3" "$(jq -r '.clusters[0].features[0].result' "$work/rcoff2.out")" Removed
expect_eq "c3 has no PodPreset CRD, webhook, workload or Secret left" \
  "$(k c3 get crd podpresets.settings.kubectl-fed.io -o name --ignore-not-found; k c3 get mutatingwebhookconfiguration kubectl-fed-podpreset -o name --ignore-not-found; k c3 -n kubectl-fed-system get deploy/fed-podpreset svc/fed-podpreset-webhook secret/fed-podpreset-webhook-tls -o name --ignore-not-found 2>/dev/null)" ""
run rcoff3 reconfigure --context c1 --clusters region=testbed --set podPreset=false -o json
expect_eq "podPreset=false again: nothing to remove" "$(jq -r '.clusters[0].features[0] | .result + " " + .message' "$work/rcoff3.out")" "AlreadyApplied not installed"
