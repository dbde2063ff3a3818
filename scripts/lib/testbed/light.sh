# shellcheck shell=bash
# --light-members N: N extra clusters l1..lN that have a control plane and nothing else, for
# the scale benchmarks (E1, E3: offloading to many members). They share one network namespace
# (fedtb-light, 172.31.0.99 on the WAN), one etcd (each API server under its own --etcd-prefix),
# one CA and one set of certificates. Each has a kube-apiserver on port 7000+j and a
# kube-controller-manager with only the controllers a member needs here: ServiceAccount tokens
# (join waits for one) and namespace deletion. A static Node "node1" with a PodCIDR stands for
# the member's nodes: no kubelet, and no node-lifecycle controller to mark it NotReady. Pods
# never run there (no scheduler), so members are joined with --namespace-quota 0 (the tenancy
# webhook could not answer). API servers without watch cache and daemons on one Go thread each:
# 50 idle members cost 8 CPU-s per 30 s instead of 13 (docs/TESTBED.md).
#   member j: API https://172.31.0.99:(7000+j) (host: https://127.0.0.1:(17000+j)),
#             PodCIDR 10.(110+j).0.0/16, ServiceCIDR 10.j.0.0/16

LIGHT_WAN_IP=172.31.0.99
light_dir() { echo "$TB_STATE/light"; }
light_ns() { echo "${TB_PREFIX}-light"; }
light_api_port() { echo $((7000 + $1)); }
light_host_port() { echo $((17000 + $1)); }
light_pod_cidr() { echo "10.$((110 + $1)).0.0/16"; }
light_service_cidr() { echo "10.$1.0.0/16"; }

light_pki() {
  local d
  d="$(light_dir)/pki"
  mkdir -p "$d" && chmod 700 "$d"
  issue_ca "$d" ca "fedtb-light-ca"
  issue_ca "$d" etcd-ca "fedtb-light-etcd-ca"
  issue_cert "$d" etcd-server etcd-ca "/CN=etcd" "IP:127.0.0.1,DNS:localhost" "serverAuth,clientAuth"
  issue_cert "$d" apiserver-etcd-client etcd-ca "/CN=kube-apiserver-etcd-client"
  issue_cert "$d" apiserver ca "/CN=kube-apiserver" \
    "IP:127.0.0.1,IP:$LIGHT_WAN_IP,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:localhost" \
    serverAuth
  issue_cert "$d" admin ca "/O=system:masters/CN=fedtb-admin"
  issue_cert "$d" controller-manager ca "/CN=system:kube-controller-manager"
  if [ ! -f "$d/sa.key" ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$d/sa.key" 2>/dev/null
    openssl pkey -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
  fi
}

# The shared namespace on the WAN and the shared etcd.
start_light_base() {
  local d ns
  d=$(light_dir); ns=$(light_ns)
  ensure_ns "$ns"
  # Named like a control plane's WAN leg ("c0cp-w") so that `leftovers` recognises it.
  plug "$ns" wan0 wan "$LIGHT_WAN_IP/24" "c0cp-w"
  mkdir -p "$d/logs" "$d/etcd"
  chmod 700 "$d/etcd"
  start_etcd light "$ns" "$d" 8589934592
}

# Light member j: its API server, controller manager, host forward, kubeconfigs and Node.
start_light_member() {
  local j=$1 d p ns md port
  d=$(light_dir); p="$d/pki"; ns=$(light_ns); md="$d/l$j"; port=$(light_api_port "$j")
  mkdir -p "$md"
  start_daemon "l$j-apiserver" "$ns" "$md/kube-apiserver.log" env GOMAXPROCS=1 "$TB_BIN/kube-apiserver" \
    --advertise-address "$LIGHT_WAN_IP" --bind-address 0.0.0.0 --secure-port "$port" \
    --etcd-servers https://127.0.0.1:2379 --etcd-prefix "/l$j" --etcd-cafile "$p/etcd-ca.crt" \
    --etcd-certfile "$p/apiserver-etcd-client.crt" --etcd-keyfile "$p/apiserver-etcd-client.key" \
    --client-ca-file "$p/ca.crt" --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" \
    --service-cluster-ip-range "$(light_service_cidr "$j")" \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --authorization-mode RBAC --endpoint-reconciler-type none \
    --allow-privileged=true --enable-priority-and-fairness=false --profiling=false --event-ttl 1h \
    --watch-cache=false --v 0
  wait_for "l$j kube-apiserver /readyz" 180 in_ns "$ns" curl -sfk --max-time 2 "https://127.0.0.1:$port/readyz" ||
    { tail -20 "$md/kube-apiserver.log" >&2; die "l$j: kube-apiserver did not become ready (log: $md/kube-apiserver.log)"; }
  write_kubeconfig "$md/controller-manager.kubeconfig" "l$j" "https://127.0.0.1:$port" "$p/ca.crt" "$p/controller-manager.crt" "$p/controller-manager.key"
  write_kubeconfig "$md/admin.kubeconfig" "l$j" "https://127.0.0.1:$(light_host_port "$j")" "$p/ca.crt" "$p/admin.crt" "$p/admin.key"
  write_kubeconfig "$md/admin-internal.kubeconfig" "l$j" "https://$LIGHT_WAN_IP:$port" "$p/ca.crt" "$p/admin.crt" "$p/admin.key"
  start_daemon "l$j-controller-manager" "$ns" "$md/kube-controller-manager.log" env GOMAXPROCS=1 "$TB_BIN/kube-controller-manager" \
    --kubeconfig "$md/controller-manager.kubeconfig" --secure-port 0 --leader-elect=false \
    --use-service-account-credentials=true \
    --service-account-private-key-file "$p/sa.key" --root-ca-file "$p/ca.crt" \
    --controllers serviceaccount-token,serviceaccount,namespace --profiling=false --v 0
  local sock="$TB_RUN/l$j-apiserver.sock"
  start_daemon "l$j-fwd-in" "$ns" "$md/forward.log" \
    socat "UNIX-LISTEN:$sock,fork,unlink-early,mode=600" "TCP:127.0.0.1:$port"
  start_daemon "l$j-fwd-out" "" "$md/forward.log" \
    socat "TCP-LISTEN:$(light_host_port "$j"),bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$sock"
  local kc=("$KUBECTL" --kubeconfig "$md/admin.kubeconfig")
  wait_for "l$j API on 127.0.0.1:$(light_host_port "$j")" 30 "${kc[@]}" get --raw /readyz ||
    die "l$j: API server not reachable through the host forward"
  "${kc[@]}" get node node1 >/dev/null 2>&1 || "${kc[@]}" create -f - >/dev/null <<YAML || die "l$j: creating node1 failed"
apiVersion: v1
kind: Node
metadata:
  name: node1
  labels: { kubernetes.io/hostname: node1, kubernetes.io/os: linux, fedtb.io/cluster: l$j }
spec:
  podCIDR: 10.$((110 + j)).0.0/24
YAML
  "${kc[@]}" patch node node1 --subresource status --type merge -p "$(cat <<JSON
{"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "LightMember",
  "message": "a control-plane-only testbed member", "lastHeartbeatTime": "$(date -u +%FT%TZ)",
  "lastTransitionTime": "$(date -u +%FT%TZ)"}],
  "addresses": [{"type": "InternalIP", "address": "$LIGHT_WAN_IP"}],
  "capacity": {"cpu": "32", "memory": "256Gi", "pods": "110"},
  "allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110"}}}
JSON
)" >/dev/null || die "l$j: marking node1 Ready failed"
}

start_light_members() {
  local n=$1 j pids=()
  light_pki
  start_light_base
  wait_for "light etcd" 60 in_ns "$(light_ns)" curl -sf --max-time 2 http://127.0.0.1:2381/health ||
    die "light members: etcd did not become healthy (log: $(light_dir)/logs/etcd.log)"
  # Two at a time: an API server's start is CPU-bound, and this machine has two cores.
  for j in $(seq 1 "$n"); do
    start_light_member "$j" & pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then
      wait "${pids[0]}" || die "a light member failed to start"
      pids=("${pids[@]:1}")
    fi
  done
  for p in "${pids[@]}"; do wait "$p" || die "a light member failed to start"; done
}

light_members_healthy() {
  local n=${1:-0} j
  for j in $(seq 1 "$n"); do
    "$KUBECTL" --kubeconfig "$(light_dir)/l$j/admin.kubeconfig" get --raw /readyz >/dev/null 2>&1 || return 1
  done
}
