# shellcheck shell=bash
# Pod webhook and pod reflection checks that datapath_test.sh runs in each scenario
# (docs/OFFLOAD.md); sourced, they use its helpers (k, run, ok_run, dial, eventually, expect_eq,
# netmap, $IMAGE, $TESTBED, $work) and the checks of offload_checks.sh, tenancy_checks.sh and
# replication_checks.sh.

# reflection_beyond_addresses MODE POD: kubectl logs/exec/port-forward through the virtual
# node, ConfigMap/Secret reflection, tenancy on c3, the twin deleted on c3 made again, a stray
# pod on c2's virtual node Pending.
reflection_beyond_addresses() {
  local mode=$1 pod=$2 twin_uid
  logs_through_virtual_kubelet "$mode" "$pod"
  config_reflection "$mode"
  tenancy "$mode"
  # The twin deleted on c3 is made again, for the same host pod.
  twin_uid=$(k c3 -n shop-c1 get pod "$pod" -o jsonpath='{.metadata.uid}')
  k c3 -n shop-c1 delete pod "$pod" --wait=false >/dev/null
  eventually 90 "$mode: the twin deleted on c3 is made again and runs" bash -c \
    "u=\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get pod $pod -o jsonpath='{.metadata.uid}/{.status.phase}' 2>/dev/null); [ \"\${u#*/}\" = Running ] && [ \"\${u%/*}\" != $twin_uid ]"
  expect_eq "$mode: the host pod is the same one" "$(k c1 -n shop get pods -l app=web -o jsonpath='{.items[*].metadata.name}')" "$pod"
  eventually 30 "$mode: the host pod is Running again" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pod $pod -o jsonpath='{.status.phase}')\" = Running ]"
  # A pod bound to c2's virtual node, where shop has no replica, stays Pending and says why;
  # deleted, it goes (the manager finishes its deletion: no kubelet will).
  k c1 -n shop run stray --image "$IMAGE" --restart=Never --command \
    --overrides='{"spec":{"nodeName":"kubectl-fed-c2","tolerations":[{"key":"virtual-node.kubectl-fed.io/not-allowed","operator":"Exists"}]}}' -- /bin/true >/dev/null
  eventually 30 "$mode: a pod on c2's virtual node is Pending: shop is not offloaded there" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pod stray -o jsonpath='{.status.phase}/{.status.reason}')\" = Pending/NamespaceNotOffloaded ]"
  k c1 -n shop delete pod stray --wait=false >/dev/null
  eventually 30 "$mode: deleted, it is gone" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pod stray -o name --ignore-not-found)\" ]"
}

# placement_and_webhook MODE: strategies Local and LocalAndRemote, and pods refused while no
# manager answers the webhook.
placement_and_webhook() {
  local mode=$1
  # Strategy Local: a new Deployment's pods stay on c1's real nodes.
  ok_run offlocal offload namespace shop --context c1 --selector kubectl-fed.io/cluster-id=c3 --pod-offloading-strategy Local -o json
  expect_eq "$mode: offload again with Local updates the strategy" "$(jq -r .result "$work/offlocal.out")" updated
  sleep 1  # the webhook answers from the manager's informer
  k c1 -n shop create deployment loc --replicas 2 --image "$IMAGE" -- /usr/local/bin/fed-agent probe --listen 7946 --id loc --for 600s >/dev/null
  eventually 60 "$mode: Local: both pods of shop/loc run on c1's real nodes" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pods -l app=loc -o jsonpath='{range .items[*]}{.spec.nodeName}/{.status.phase} {end}' | tr ' ' '\n' | sed 's/^node[12]/node/' | sort | uniq -c | tr -s ' ')\" = ' 2 node/Running' ]"
  k c1 -n shop delete deployment loc >/dev/null
  local_and_remote "$mode"
  # failurePolicy Fail: while no manager answers, pods of shop are refused; elsewhere not.
  k c1 -n kubectl-fed-system scale deployment fed-manager --replicas 0 >/dev/null
  eventually 30 "$mode: the manager is down" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-manager -o name)\" ]"
  k c1 -n shop run refused --image "$IMAGE" --restart=Never --command -- /bin/true >"$work/refused.out" 2>&1 \
    && fail "$mode: a pod of offloaded shop was admitted without the webhook" \
    || { grep -q 'failed calling webhook "pods.offload.kubectl-fed.io"' "$work/refused.out" && pass "$mode: without a manager, pods of shop are refused: $(cut -c1-110 "$work/refused.out")" || fail "unexpected: $(cat "$work/refused.out")"; }
  k c1 -n default run admitted --image "$IMAGE" --restart=Never --command -- /bin/true >/dev/null \
    && pass "$mode: without a manager, pods of other namespaces are admitted" || fail "$mode: a pod of default was refused"
  k c1 -n default delete pod admitted --now >/dev/null
  k c1 -n kubectl-fed-system scale deployment fed-manager --replicas 2 >/dev/null
  k c1 -n kubectl-fed-system rollout status deploy/fed-manager --timeout=90s >/dev/null
}

# reflection MODE C3_PODS C3_HERE: the pod webhook and pod reflection (docs/OFFLOAD.md). `shop` is
# offloaded from c1 to c3 only, strategy Remote; a plain Deployment's pod is sent to c3's
# virtual node by the webhook and runs as a real container on c3 in shop-c1; c1 shows its status
# with its IP as c1 reaches it, and a c1 pod dials it there and through a Service; the twin
# deleted on c3 comes back; offloaded to c2 too, a pod sent to c2 reaches it by the ClusterIP
# of the Service's twin on c2; scaled to 0, both sides' pods go; strategy Local keeps new pods on
# c1; without a manager, pods of shop are refused (failurePolicy Fail); unoffload removes
# shop-c1.
reflection() {
  local mode=$1 c3_pods=$2 c3_here=$3 fed_sa=system:serviceaccount:kubectl-fed-system:fed-federation
  k c1 create namespace shop >/dev/null
  ok_run off offload namespace shop --context c1 --selector kubectl-fed.io/cluster-id=c3 \
    --pod-offloading-strategy Remote --wait --timeout 60s -o json
  expect_eq "$mode: offload shop to c3 only" "$(jq -r '[.phase, .remoteNamespace] | join(" ")' "$work/off.out")" "Ready shop-c1"
  expect_eq "$mode: no replica of shop on c2" "$(k c2 get ns shop-c1 -o name --ignore-not-found)" ""
  # The federation's identity on c3 reaches pods in the replica only.
  expect_eq "$mode: c3: the federation may watch pods in shop-c1" "$(k c3 auth can-i watch pods -n shop-c1 --as $fed_sa)" yes
  expect_eq "$mode: c3: the federation may not list pods in default" "$(k c3 auth can-i list pods -n default --as $fed_sa 2>/dev/null)" no
  k c3 -n default create rolebinding grab --clusterrole kubectl-fed:federation-replica --serviceaccount kubectl-fed-system:fed-federation --as $fed_sa >"$work/grab.out" 2>&1 \
    && fail "$mode: the federation bound itself pod rights in c3's default namespace" \
    || { grep -q "only in the replicas" "$work/grab.out" && pass "$mode: c3: the federation may not bind itself pod rights outside replicas" || fail "unexpected: $(cat "$work/grab.out")"; }
  # A plain Deployment: the manager's pod webhook gives its pods the strategy's placement
  # (Remote: c3's virtual node only) and the virtual-node toleration.
  eventually 30 "$mode: the pod webhook is configured for shop" bash -c \
    "kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get mutatingwebhookconfiguration kubectl-fed-pods -o jsonpath='{.webhooks[0].namespaceSelector.matchExpressions[0].values}' | grep -q '\"shop\"'"
  k c1 -n shop create deployment web --image "$IMAGE" -- /usr/local/bin/fed-agent probe --listen 7946 --id shop-web --for 600s >/dev/null
  eventually 90 "$mode: the host pod of shop/web is Running on c1" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pods -l app=web -o jsonpath='{.items[*].status.phase}')\" = Running ]"
  local pod node twin_ip host_ip
  pod=$(k c1 -n shop get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
  expect_eq "$mode: the webhook required c3's virtual node" \
    "$(k c1 -n shop get pod "$pod" -o json | jq -c '[.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchExpressions[] | "\(.key) \(.operator) \(.values | join(","))"]')" \
    '["kubectl-fed.io/cluster-id In c3","kubectl-fed.io/type In virtual-node"]'
  node=$(k c1 -n shop get pod "$pod" -o jsonpath='{.spec.nodeName}')
  expect_eq "$mode: $pod is bound to c3's virtual node" "$node" kubectl-fed-c3
  expect_eq "$mode: its twin runs on a real node of c3" \
    "$(k c3 -n shop-c1 get pod "$pod" -o jsonpath='{.spec.nodeName} {.status.phase}' | sed 's/^node[12] /node /')" "node Running"
  [ -n "$(k c3 -n shop-c1 get pod "$pod" -o jsonpath='{.status.containerStatuses[0].state.running.startedAt}')" ] \
    && pass "$mode: the twin's container is running" || fail "$mode: the twin's container is not running"
  twin_ip=$(k c3 -n shop-c1 get pod "$pod" -o jsonpath='{.status.podIP}')
  host_ip=$(k c1 -n shop get pod "$pod" -o jsonpath='{.status.podIP}')
  expect_eq "$mode: c1 shows the pod IP as c1 reaches it (twin $twin_ip)" "$host_ip" "$(netmap "$twin_ip" "$c3_pods" "$c3_here")"
  local answer cip
  answer=$(dial c1 node2 shopdial "$host_ip:7946")
  [ "${answer% from *}" = "kubectl-fed-probe shop-web" ] && pass "$mode: a c1 pod reached the offloaded pod at $host_ip: $answer" \
    || fail "$mode: c1 -> offloaded pod: '$answer'"
  # And through a Service on c1: the host's EndpointSlice lists the pod at that IP, kube-proxy
  # DNATs the ClusterIP to it.
  k c1 -n shop expose deployment web --port 7946 >/dev/null
  cip=$(k c1 -n shop get service web -o jsonpath='{.spec.clusterIP}')
  eventually 30 "$mode: the EndpointSlice of Service shop/web lists $host_ip" bash -c \
    "kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get endpointslices -l kubernetes.io/service-name=web -o jsonpath='{.items[*].endpoints[*].addresses[*]}' | grep -qx $host_ip"
  answer=$(dial c1 node1 svcdial "$cip:7946")
  [ "${answer% from *}" = "kubectl-fed-probe shop-web" ] && pass "$mode: a c1 pod reached the offloaded pod by the ClusterIP $cip: $answer" \
    || fail "$mode: c1 -> ClusterIP of the offloaded pod: '$answer'"
  # What follows up to the Service reflection does not depend on the addresses: the distinct
  # run covers it, the same-PodCIDR run goes on (CI time).
  if [ "$mode" = distinct ]; then
    reflection_beyond_addresses "$mode" "$pod"
  fi
  # Service reflection: offloaded to c2 as well, a pod of shop sent to c2 reaches shop/web on c3
  # by the ClusterIP of web's twin on c2 (its EndpointSlice lists the pod through c1's
  # ExternalCIDR, an EndpointMapping on c1).
  ok_run offboth offload namespace shop --context c1 --selector 'kubectl-fed.io/cluster-id in (c2,c3)' \
    --pod-offloading-strategy Remote --wait --timeout 60s -o json
  expect_eq "$mode: offload shop to c2 and c3" "$(jq -r '[.result, .phase] | join(" ")' "$work/offboth.out")" "updated Ready"
  eventually 30 "$mode: web's twin Service and EndpointSlice on c2 list one endpoint" bash -c \
    "[ -n \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c2) -n shop-c1 get endpointslice web-kubectl-fed -o jsonpath='{.endpoints[0].addresses[0]}' 2>/dev/null)\" ]"
  expect_eq "$mode: c3's twin EndpointSlice lists the pod at c3's own address" \
    "$(k c3 -n shop-c1 get endpointslice web-kubectl-fed -o jsonpath='{.endpoints[*].addresses[*]}')" "$(k c3 -n shop-c1 get pod "$pod" -o jsonpath='{.status.podIP}')"
  local c2_cip
  c2_cip=$(k c2 -n shop-c1 get service web -o jsonpath='{.spec.clusterIP}')
  k c1 -n shop run client --image "$IMAGE" --restart=Never --overrides='{"spec":{"nodeSelector":{"kubectl-fed.io/cluster-id":"c2"}}}' \
    --command -- /usr/local/bin/fed-agent probe --dial "$c2_cip:7946" --timeout 60s >/dev/null
  eventually 90 "$mode: the host pod shop/client (on c2) Succeeded" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pod client -o jsonpath='{.spec.nodeName}/{.status.phase}')\" = kubectl-fed-c2/Succeeded ]"
  answer=$(k c2 -n shop-c1 logs client)
  [ "${answer% from *}" = "kubectl-fed-probe shop-web" ] && pass "$mode: c2 -> ClusterIP $c2_cip on c2 -> shop/web on c3: $answer" \
    || fail "$mode: c2 -> c3 through the twin Service: '$answer'"
  k c1 -n shop delete pod client --wait=false >/dev/null
  k c1 -n shop delete service web >/dev/null
  eventually 30 "$mode: the host Service deleted, its twins and EndpointMappings go" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c2) -n shop-c1 get service,endpointslice -o name)\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get service,endpointslice -l kubectl-fed.io/origin-cluster -o name)\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get endpointmappings -l kubectl-fed.io/origin-service -o name)\" ]"
  if [ "$mode" = distinct ]; then replication "$mode"; fi
  # Scaled to 0: the host pod is deleted, its twin goes, then the host pod is finalized.
  k c1 -n shop scale deployment web --replicas=0 >/dev/null
  eventually 90 "$mode: scaled to 0, no pod of shop left on c1 nor in shop-c1 on c3" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n shop get pods -o name)\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) -n shop-c1 get pods -o name)\" ]"
  if [ "$mode" = distinct ]; then placement_and_webhook "$mode"; fi
  ok_run unoff unoffload namespace shop --context c1 --wait --timeout 90s -o json
  eventually 60 "$mode: unoffload: shop-c1 is gone from c3" bash -c \
    "[ -z \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c3) get ns shop-c1 -o name --ignore-not-found)\" ]"
  expect_eq "$mode: unoffload: the manager may no longer read the Secrets of shop" \
    "$(k c1 auth can-i list secrets -n shop --as system:serviceaccount:kubectl-fed-system:fed-manager || true)" no
  k c1 delete namespace shop --wait=false >/dev/null
}
