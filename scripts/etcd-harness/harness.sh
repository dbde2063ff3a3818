#!/usr/bin/env bash
# A real 3-member etcd cluster (mTLS) in network namespaces, with a constant-delay proxy in front
# of each member (the kernel has no sch_netem), plus an optional kube-apiserver. Every address
# lives inside namespaces this script creates; nothing listens on the host.
#
#   harness.sh up DIR DELAY_MS          namespaces, PKI, delay proxies, etcd members
#   harness.sh kill DIR N               SIGKILL member N (1..3)
#   harness.sh delay DIR N MS           set member N's egress delay (its proxies re-read it)
#   harness.sh restart DIR N            start member N again on its data dir
#   harness.sh apiserver DIR SERVERS    kube-apiserver in fedetcd-c with --etcd-servers SERVERS
#   harness.sh stop-apiserver DIR
#   harness.sh down DIR                 stop everything, delete the namespaces (idempotent)
#   harness.sh exec -- CMD...           run CMD in the client namespace fedetcd-c
#
# Layout: fedetcd-sw holds bridge br0; fedetcd-c (client, 10.199.0.10) and fedetcd-e1..3
# (10.199.0.1-3) hang off it. Member N: etcd on :12379/:12380, advertising :2379/:2380 where
# fed-delay-proxy adds DELAY_MS to the member's egress (client port: replies; peer port: both
# directions, so each peer message is delayed once by its sender's proxy).
# Environment: FED_DELAY_PROXY (path of fed-delay-proxy), FED_K8S_BIN (etcd, kube-apiserver),
# FED_ETCD_NS (namespace prefix, default fedetcd) and FED_ETCD_NET (the /24's first three
# octets, default 10.199.0): a second cluster with other values runs beside the first.
set -euo pipefail

K8S_BIN=${FED_K8S_BIN:-/root/.cache/kubectl-fed/bin/k8s-v1.33.13}
DELAY_PROXY=${FED_DELAY_PROXY:-}
NET=${FED_ETCD_NET:-10.199.0}
NS=${FED_ETCD_NS:-fedetcd}
MEMBERS="1 2 3"

die() { echo "etcd-harness: $*" >&2; exit 1; }
in_ns() { local ns=$1; shift; nsenter --net="/run/netns/$ns" "$@"; }

# start DIR NAME NS CMD...: a daemon in a namespace; pid in DIR/NAME.pid, log in DIR/NAME.log.
start() {
  local dir=$1 name=$2 ns=$3; shift 3
  setsid nsenter --net="/run/netns/$ns" "$@" >"$dir/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}

stop_pid() {
  local f=$1 sig=${2:-TERM} pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  kill -"$sig" "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$f"
}

net_up() {
  ip netns add "$NS-sw"
  ip -n "$NS-sw" link add br0 type bridge
  ip -n "$NS-sw" link set br0 up
  ip -n "$NS-sw" link set lo up
  local ns ip
  for ns in c e1 e2 e3; do
    case $ns in c) ip=$NET.10 ;; e*) ip=$NET.${ns#e} ;; esac
    ip netns add "$NS-$ns"
    ip link add "v-$ns" netns "$NS-$ns" type veth peer name "p-$ns" netns "$NS-sw"
    ip -n "$NS-sw" link set "p-$ns" master br0 up
    ip -n "$NS-$ns" addr add "$ip/24" dev "v-$ns"
    ip -n "$NS-$ns" link set "v-$ns" up
    ip -n "$NS-$ns" link set lo up
  done
}

cert() {  # cert DIR NAME SUBJ SAN USAGE
  local d=$1 n=$2
  [ -f "$d/$n.crt" ] && return 0
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$d/$n.key" 2>/dev/null
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=%s\n%s\n' \
    "$5" "${4:+subjectAltName=$4}" >"$d/$n.ext"
  openssl req -new -key "$d/$n.key" -subj "$3" -out "$d/$n.csr" 2>/dev/null
  openssl x509 -req -in "$d/$n.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 30 \
    -sha256 -extfile "$d/$n.ext" -out "$d/$n.crt" 2>/dev/null
  rm -f "$d/$n.csr" "$d/$n.ext"
}

pki() {
  local d=$1/pki
  mkdir -p "$d" && chmod 700 "$d"
  if [ ! -f "$d/ca.crt" ]; then
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$d/ca.key" 2>/dev/null
    openssl req -x509 -new -key "$d/ca.key" -subj "/CN=fedetcd-ca" -days 30 -sha256 \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -out "$d/ca.crt" 2>/dev/null
  fi
  cert "$d" server "/CN=etcd" "IP:$NET.1,IP:$NET.2,IP:$NET.3,IP:$NET.10,IP:127.0.0.1" serverAuth,clientAuth
  cert "$d" client "/CN=fedetcd-client" "" clientAuth
  cert "$d" apiserver "/CN=kube-apiserver" "IP:$NET.10,IP:127.0.0.1,IP:10.96.0.1" serverAuth
  cert "$d" admin "/O=system:masters/CN=fedetcd-admin" "" clientAuth
  if [ ! -f "$d/sa.key" ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$d/sa.key" 2>/dev/null
    openssl pkey -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
  fi
}

start_member() {  # start_member DIR N STATE
  local dir=$1 n=$2 state=$3 p=$1/pki ip=$NET.$2
  start "$dir" "etcd$n" "$NS-e$n" "$K8S_BIN/etcd" --name "e$n" --data-dir "$dir/data$n" \
    --listen-client-urls "https://$ip:12379" --advertise-client-urls "https://$ip:2379" \
    --listen-peer-urls "https://$ip:12380" --initial-advertise-peer-urls "https://$ip:2380" \
    --initial-cluster "e1=https://$NET.1:2380,e2=https://$NET.2:2380,e3=https://$NET.3:2380" \
    --initial-cluster-state "$state" --initial-cluster-token "$NS-$(basename "$dir")" \
    --cert-file "$p/server.crt" --key-file "$p/server.key" --trusted-ca-file "$p/ca.crt" \
    --client-cert-auth --peer-cert-file "$p/server.crt" --peer-key-file "$p/server.key" \
    --peer-trusted-ca-file "$p/ca.crt" --peer-client-cert-auth --log-level warn
}

etcd_ok() {  # etcd_ok DIR N: the member answers status through its delay proxy
  in_ns "$NS-c" curl -sf --max-time 2 --cacert "$1/pki/ca.crt" --cert "$1/pki/client.crt" \
    --key "$1/pki/client.key" -XPOST "https://$NET.$2:2379/v3/maintenance/status" -d '{}' |
    grep -q '"leader":"[1-9]'
}

cmd_up() {
  local dir=$1 delay=$2 n
  [ -x "$DELAY_PROXY" ] || die "set FED_DELAY_PROXY to the fed-delay-proxy binary"
  [ -x "$K8S_BIN/etcd" ] || die "no etcd in $K8S_BIN (run scripts/testbed build)"
  [ -e "/run/netns/$NS-sw" ] && die "$NS-* namespaces exist; run: $0 down DIR"
  mkdir -p "$dir"
  pki "$dir"
  net_up
  for n in $MEMBERS; do
    echo "$delay" >"$dir/delay$n"
    start "$dir" "dproxy-client$n" "$NS-e$n" "$DELAY_PROXY" --listen "$NET.$n:2379" \
      --target "$NET.$n:12379" --delay-ms "$delay" --delay-file "$dir/delay$n" --mode resp
    start "$dir" "dproxy-peer$n" "$NS-e$n" "$DELAY_PROXY" --listen "$NET.$n:2380" \
      --target "$NET.$n:12380" --delay-ms "$delay" --delay-file "$dir/delay$n" --mode both
    start_member "$dir" "$n" new
  done
  for n in $MEMBERS; do
    for _ in $(seq 150); do etcd_ok "$dir" "$n" && break; sleep 0.2; done
    etcd_ok "$dir" "$n" || die "member $n not healthy (log: $dir/etcd$n.log)"
  done
  echo "$delay" >"$dir/delay"
}

cmd_apiserver() {
  local dir=$1 servers=$2 p=$1/pki
  start "$dir" apiserver "$NS-c" "$K8S_BIN/kube-apiserver" --advertise-address "$NET.10" \
    --bind-address "$NET.10" --secure-port 6443 --etcd-servers "$servers" \
    --etcd-cafile "$p/ca.crt" --etcd-certfile "$p/client.crt" --etcd-keyfile "$p/client.key" \
    --client-ca-file "$p/ca.crt" --tls-cert-file "$p/apiserver.crt" \
    --tls-private-key-file "$p/apiserver.key" --service-cluster-ip-range 10.96.0.0/24 \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --authorization-mode AlwaysAllow --profiling=false --v 1
  for _ in $(seq 600); do
    in_ns "$NS-c" curl -sf --max-time 2 --cacert "$p/ca.crt" --cert "$p/admin.crt" \
      --key "$p/admin.key" "https://$NET.10:6443/readyz" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  tail -20 "$dir/apiserver.log" >&2
  die "kube-apiserver not ready (log: $dir/apiserver.log)"
}

cmd_down() {
  local dir=${1:-} f ns
  if [ -n "$dir" ] && [ -d "$dir" ]; then
    for f in "$dir"/*.pid; do [ -e "$f" ] && stop_pid "$f"; done
  fi
  for ns in c e1 e2 e3 sw; do
    if [ -e "/run/netns/$NS-$ns" ]; then
      # Anything still running in the namespace (e.g. after a crashed test) goes too.
      for pid in $(ip netns pids "$NS-$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
      ip netns del "$NS-$ns"
    fi
  done
}

case ${1:-} in
  up) cmd_up "$2" "$3" ;;
  kill) stop_pid "$2/etcd$3.pid" KILL ;;
  delay) echo "$4" >"$2/delay$3.tmp" && mv "$2/delay$3.tmp" "$2/delay$3" ;;
  restart) start_member "$2" "$3" existing ;;
  apiserver) cmd_apiserver "$2" "$3" ;;
  stop-apiserver) stop_pid "$2/apiserver.pid" ;;
  down) cmd_down "${2:-}" ;;
  exec) shift; [ "${1:-}" = -- ] && shift; in_ns "$NS-c" "$@" ;;
  *) sed -n 2,20p "$0" >&2; exit 2 ;;
esac
