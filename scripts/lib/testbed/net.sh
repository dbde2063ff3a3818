# shellcheck shell=bash
# The testbed's network: one "switch" namespace holding a LAN bridge per cluster and a WAN
# bridge; control planes and nodes are namespaces wired to them with veth pairs. The host's
# own namespace gets nothing but loopback forwards to the API servers.

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

ensure_ns() {
  local ns=$1
  ip netns list | awk '{print $1}' | grep -qx "$ns" || ip netns add "$ns"
  in_ns "$ns" ip link set lo up
}

# plug NS IFNAME BRIDGE ADDR/LEN: a veth from NS (named IFNAME) to BRIDGE in the switch namespace.
plug() {
  local ns=$1 ifname=$2 bridge=$3 addr=$4 peer=$5
  local sw; sw=$(ns_net)
  if in_ns "$ns" ip link show "$ifname" >/dev/null 2>&1; then return 0; fi
  in_ns "$sw" ip link add "$peer" type veth peer name "$ifname" netns "$ns"
  in_ns "$sw" ip link set "$peer" master "$bridge" up
  in_ns "$ns" ip addr add "$addr" dev "$ifname"
  in_ns "$ns" ip link set "$ifname" up
}

ensure_switch() {
  local clusters=$1 sw i
  sw=$(ns_net)
  ensure_ns "$sw"
  for i in wan $(seq 1 "$clusters" | sed 's/^/lan/'); do
    in_ns "$sw" ip link show "$i" >/dev/null 2>&1 || in_ns "$sw" ip link add "$i" type bridge
    in_ns "$sw" ip link set "$i" up
  done
}

# Kernel settings a node needs for pods and kube-proxy; all of them are per-namespace.
node_sysctls() {
  local ns=$1
  in_ns "$ns" sysctl -qw net.ipv4.ip_forward=1
  in_ns "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 2>/dev/null || true
  in_ns "$ns" sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null || true
}

cluster_network() {
  local c=$1 nodes=$2 kubelet=$3 cpns k nns gw
  cpns=$(ns_cp "$c")
  ensure_ns "$cpns"
  plug "$cpns" eth0 "lan$c" "$(cp_lan_ip "$c")/24" "c${c}cp-l"
  plug "$cpns" wan0 wan "$(cp_wan_ip "$c")/24" "c${c}cp-w"
  [ "$kubelet" = real ] || return 0
  gw=$(node_lan_ip "$c" 1)
  for k in $(seq 1 "$nodes"); do
    nns=$(ns_node "$c" "$k")
    ensure_ns "$nns"
    node_sysctls "$nns"
    plug "$nns" eth0 "lan$c" "$(node_lan_ip "$c" "$k")/24" "c${c}n${k}-l"
    # Pod subnets of the other nodes of this cluster (the testbed's own routing, not the product's).
    local j
    for j in $(seq 1 "$nodes"); do
      [ "$j" = "$k" ] && continue
      in_ns "$nns" ip route replace "$(node_pod_cidr "$c" "$j")" via "$(node_lan_ip "$c" "$j")"
    done
    # The control plane must route back to every pod subnet (kube-apiserver -> webhooks, probes).
    in_ns "$cpns" ip route replace "$(node_pod_cidr "$c" "$k")" via "$(node_lan_ip "$c" "$k")"
    # The API server advertises its WAN address; the cluster's own traffic to it stays on the
    # LAN, as within a cloud's network, so that a WAN partition leaves the cluster working.
    in_ns "$nns" ip route replace "$(cp_wan_ip "$c")/32" via "$(cp_lan_ip "$c")"
    if [ "$k" = 1 ]; then
      # node1 is the cluster's gateway: it alone has a leg on the WAN.
      plug "$nns" wan0 wan "$(wan_gw_ip "$c")/24" "c${c}n${k}-w"
      # node1 has no default route, and a host-network pod's connect() to a ClusterIP fails
      # with ENETUNREACH before kube-proxy's DNAT can run: give the ServiceCIDR a route.
      in_ns "$nns" ip route replace "$(service_cidr "$c")" via "$(cp_lan_ip "$c")"
      in_ns "$nns" iptables-legacy -t nat -C POSTROUTING -o wan0 ! -s 172.31.0.0/24 -j MASQUERADE 2>/dev/null ||
        in_ns "$nns" iptables-legacy -t nat -A POSTROUTING -o wan0 ! -s 172.31.0.0/24 -j MASQUERADE
    else
      in_ns "$nns" ip route replace default via "$gw"
    fi
  done
}

# A loopback port on the host that reaches the apiserver inside the control-plane namespace,
# through a unix socket (unix sockets are not bound to a network namespace).
host_forward() {
  local c=$1 sock="$TB_RUN/c$1-apiserver.sock"
  start_daemon "c$c-fwd-in" "$(ns_cp "$c")" "$(cdir "$c")/logs/forward.log" \
    socat "UNIX-LISTEN:$sock,fork,unlink-early,mode=600" "TCP:127.0.0.1:6443"
  start_daemon "c$c-fwd-out" "" "$(cdir "$c")/logs/forward.log" \
    socat "TCP-LISTEN:$(host_port "$c"),bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$sock"
}

# Tools the node processes find first on PATH: kube-proxy must write the same (legacy)
# iptables tables as the product's agent, which uses libiptc.
ensure_tools() {
  mkdir -p "$TB_TOOLS"
  local t
  # xtables-legacy-multi picks the tool from argv[0], so one target serves every name.
  for t in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -sfn /usr/sbin/xtables-legacy-multi "$TB_TOOLS/$t"
  done
}
