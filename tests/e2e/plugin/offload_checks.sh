# shellcheck shell=bash
# Checks of namespace offloading that datapath_test.sh runs once `shop` is offloaded to c3 with a
# pod of shop/web running there (docs/OFFLOAD.md); sourced, they use its helpers (k, eventually,
# expect_eq, $IMAGE, $TESTBED).

# logs_through_virtual_kubelet MODE POD: `kubectl logs` on c1 of the pod offloaded to c3 shows
# the twin's log (the probe logged whom it answered), `-f` streams until stopped, `exec` runs a
# command in the twin with its exit code, and `port-forward` reaches its port (docs/OFFLOAD.md,
# virtual kubelet).
logs_through_virtual_kubelet() {
  local mode=$1 pod=$2 follow rc=0 said
  eventually 60 "$mode: c3's virtual node publishes the manager's kubelet endpoint" bash -c \
    "[ -n \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get node kubectl-fed-c3 -o jsonpath='{.status.addresses[0].address}')\" ]"
  # The probe logs its answer after sending it: the line may reach the twin's log a moment
  # after the dialler was answered.
  eventually 20 "$mode: kubectl logs on c1 shows the twin's log from c3" bash -c \
    "log=\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop logs $pod 2>&1); echo \"\$log\" >'$work/why';
     grep -q '^probe shop-web listening on port 7946\$' <<<\"\$log\" && grep -q '^probe shop-web answered ' <<<\"\$log\""
  rm -f "$work/why"
  expect_eq "$mode: kubectl logs --tail 1 on c1" "$(k c1 -n shop logs "$pod" --tail 1 | cut -d' ' -f1-3)" "probe shop-web answered"
  follow=$(timeout 6 kubectl --kubeconfig "$("$TESTBED" kubeconfig c1)" -n shop logs -f "$pod") || rc=$?
  [ "$rc" = 124 ] && grep -q "listening on port 7946" <<<"$follow" \
    && pass "$mode: kubectl logs -f on c1 streams the twin's log until stopped" \
    || fail "$mode: kubectl logs -f on c1 (exit $rc): '$follow'"
  # exec and port-forward: relayed to the twin through c3's API server (SPDY end to end).
  said=$(k c1 -n shop exec "$pod" -- /usr/local/bin/fed-agent version 2>&1) \
    || fail "$mode: kubectl exec on c1 failed: '$said'"
  grep -q "^fed-agent .* (commit " <<<"$said" \
    && pass "$mode: kubectl exec on c1 runs the command in the twin on c3: $said" || fail "$mode: exec on c1: '$said'"
  rc=0; said=$(k c1 -n shop exec "$pod" -- /usr/local/bin/fed-agent no-such-role 2>&1) || rc=$?
  [ "$rc" = 2 ] && grep -q 'unknown command "no-such-role"' <<<"$said" \
    && pass "$mode: kubectl exec on c1 returns the remote exit code (2) and stderr" \
    || fail "$mode: exec of a failing command: exit $rc, '$said'"
  kubectl --kubeconfig "$("$TESTBED" kubeconfig c1)" -n shop port-forward "pod/$pod" 17946:7946 >"$work/pf.out" 2>&1 &
  local pf=$!
  eventually 20 "$mode: kubectl port-forward on c1 listens" grep -q "Forwarding from 127.0.0.1:17946" "$work/pf.out"
  said=$(timeout 20 "$AGENT" probe --dial 127.0.0.1:17946 --timeout 10s 2>&1) || true
  kill "$pf" 2>/dev/null; wait "$pf" 2>/dev/null || true
  expect_eq "$mode: kubectl port-forward on c1 reaches the twin's port 7946 on c3" "$said" "kubectl-fed-probe shop-web from 127.0.0.1"
  # Only what the API server's client CA signed may call the kubelet API.
  said=$("$TESTBED" exec c1 node1 -- curl -sk -o /dev/null -w '%{http_code}' \
    "https://$(k c1 get node kubectl-fed-c3 -o jsonpath='{.status.addresses[0].address}'):10250/containerLogs/shop/$pod/web" 2>&1) || true
  [ "$said" = 000 ] && pass "$mode: the virtual kubelet refuses a client without a certificate" \
    || fail "$mode: the virtual kubelet answered a client without a certificate: $said"
}

# config_reflection MODE: ConfigMaps, Secrets and ServiceAccounts of shop (offloaded to c3) get
# twins in shop-c1 on c3, kept equal; a pod offloaded with a ConfigMap and a Secret mounted,
# running as its own ServiceAccount, runs there as that ServiceAccount's twin; the manager reads
# them only in shop (offload bound it there) and the federation writes them only in replicas.
config_reflection() {
  local mode=$1 fed_sa=system:serviceaccount:kubectl-fed-system:fed-federation
  local mgr=system:serviceaccount:kubectl-fed-system:fed-manager
  expect_eq "$mode: c1: the manager may list Secrets in offloaded shop" "$(k c1 auth can-i list secrets -n shop --as $mgr)" yes
  expect_eq "$mode: c1: the manager may not list Secrets in default" "$(k c1 auth can-i list secrets -n default --as $mgr || true)" no
  expect_eq "$mode: c3: the federation may not read Secrets in default" "$(k c3 auth can-i get secrets -n default --as $fed_sa || true)" no
  k c1 -n shop create configmap web-config --from-literal greeting=hello >/dev/null
  k c1 -n shop create secret generic web-secret --from-literal password=s3cr3t >/dev/null
  k c1 -n shop create serviceaccount web-sa >/dev/null
  eventually 60 "$mode: web-config and web-secret have twins in shop-c1 on c3" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get configmap web-config -o jsonpath='{.data.greeting}')/\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get secret web-secret -o jsonpath='{.data.password}' | base64 -d)\" = hello/s3cr3t ]"
  eventually 30 "$mode: ServiceAccount web-sa has a twin in shop-c1 on c3" \
    kubectl --kubeconfig "$("$TESTBED" kubeconfig c3)" -n shop-c1 get serviceaccount web-sa
  expect_eq "$mode: the root CA bundle of shop-c1 is c3's own" \
    "$(k c3 -n shop-c1 get configmap kube-root-ca.crt -o jsonpath='{.metadata.labels.kubectl-fed\.io/origin-cluster}')" ""
  k c1 -n shop apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: mounts}
spec:
  serviceAccountName: web-sa
  containers:
    - name: probe
      image: $IMAGE
      command: [/usr/local/bin/fed-agent, probe, --listen, "7947", --id, mounts, --for, 600s]
      volumeMounts:
        - {name: config, mountPath: /config}
        - {name: secret, mountPath: /secret}
  volumes:
    - {name: config, configMap: {name: web-config}}
    - {name: secret, secret: {secretName: web-secret}}
YAML
  eventually 90 "$mode: a pod mounting the ConfigMap and the Secret runs on c3" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pod mounts -o jsonpath='{.spec.nodeName}/{.status.phase}')\" = kubectl-fed-c3/Running ]"
  expect_eq "$mode: its twin runs as the twin of web-sa" \
    "$(k c3 -n shop-c1 get pod mounts -o jsonpath='{.spec.serviceAccountName}')" web-sa
  k c1 -n shop delete pod mounts --wait=false >/dev/null
  k c1 -n shop patch configmap web-config --type merge -p '{"data":{"greeting":"bonjour"}}' >/dev/null
  eventually 30 "$mode: a ConfigMap changed on c1 changes its twin" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get configmap web-config -o jsonpath='{.data.greeting}')\" = bonjour ]"
  k c3 -n shop-c1 delete secret web-secret >/dev/null
  eventually 60 "$mode: a twin Secret deleted on c3 is restored" bash -c \
    "kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get secret web-secret"
  k c1 -n shop delete configmap web-config >/dev/null
  k c1 -n shop delete secret web-secret >/dev/null
  k c1 -n shop delete serviceaccount web-sa >/dev/null
  eventually 30 "$mode: deleted on c1, the twins go" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get configmap/web-config secret/web-secret serviceaccount/web-sa -o name --ignore-not-found)\" ]"
}

# local_and_remote MODE: strategy LocalAndRemote lets the scheduler use c1's real nodes and c3's
# virtual node alike: three pods spread one per hostname land on node1, node2 and kubectl-fed-c3,
# and all run.
local_and_remote() {
  local mode=$1
  ok_run offboth2 offload namespace shop --context c1 --selector kubectl-fed.io/cluster-id=c3 \
    --pod-offloading-strategy LocalAndRemote -o json
  expect_eq "$mode: offload again with LocalAndRemote updates the strategy" "$(jq -r .result "$work/offboth2.out")" updated
  sleep 1  # the webhook answers from the manager's informer
  k c1 -n shop apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: spread}
spec:
  replicas: 3
  selector: {matchLabels: {app: spread}}
  template:
    metadata: {labels: {app: spread}}
    spec:
      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,
           labelSelector: {matchLabels: {app: spread}}}
      containers:
        - name: probe
          image: $IMAGE
          command: [/usr/local/bin/fed-agent, probe, --listen, "7948", --id, spread, --for, 600s]
YAML
  eventually 90 "$mode: LocalAndRemote: shop/spread runs on node1, node2 and kubectl-fed-c3" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pods -l app=spread -o jsonpath='{range .items[*]}{.spec.nodeName}/{.status.phase} {end}' | tr ' ' '\\n' | sort | tr '\\n' ' ')\" = 'kubectl-fed-c3/Running node1/Running node2/Running ' ]"
  k c1 -n shop delete deployment spread >/dev/null
}
