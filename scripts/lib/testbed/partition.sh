# shellcheck shell=bash
# Network partitions and delays on the WAN.
#
# Partitions: a cluster's legs there (its control plane's and its gateway
# node's) silently drop the traffic of the partition, as a cut link or a firewall does — no
# error reaches either side, connections time out. The rules live in a chain of their own in
# the legacy filter table of those two namespaces (the table kube-proxy and the agent write, in
# which this chain is jumped to first), so `heal` removes exactly them.

PARTITION_CHAIN=FEDTB-PARTITION

# The namespaces holding cluster N's WAN legs.
wan_namespaces() {
  local n=$1 ns
  for ns in "$(ns_cp "$n")" "$(ns_node "$n" 1)"; do
    ip netns list | awk '{print $1}' | grep -qx "$ns" && echo "$ns"
  done
  return 0
}

partition_rules_clear() {
  local ns=$1 hook
  in_ns "$ns" iptables-legacy -nL "$PARTITION_CHAIN" >/dev/null 2>&1 || return 0
  for hook in INPUT OUTPUT FORWARD; do
    while in_ns "$ns" iptables-legacy -D "$hook" -j "$PARTITION_CHAIN" 2>/dev/null; do :; done
  done
  in_ns "$ns" iptables-legacy -F "$PARTITION_CHAIN"
  in_ns "$ns" iptables-legacy -X "$PARTITION_CHAIN"
}

# partition_cluster N [M...]: cut cluster N off the WAN, or only from clusters M... (their
# control planes and gateways), in both directions.
partition_cluster() {
  local n=$1 ns m hook
  shift
  for ns in $(wan_namespaces "$n"); do
    partition_rules_clear "$ns"
    in_ns "$ns" iptables-legacy -N "$PARTITION_CHAIN"
    if [ $# = 0 ]; then
      in_ns "$ns" iptables-legacy -A "$PARTITION_CHAIN" -i wan0 -j DROP
      in_ns "$ns" iptables-legacy -A "$PARTITION_CHAIN" -o wan0 -j DROP
    else
      for m in "$@"; do
        for addr in "$(wan_gw_ip "$m")" "$(cp_wan_ip "$m")"; do
          in_ns "$ns" iptables-legacy -A "$PARTITION_CHAIN" -s "$addr" -j DROP
          in_ns "$ns" iptables-legacy -A "$PARTITION_CHAIN" -d "$addr" -j DROP
        done
      done
    fi
    for hook in INPUT OUTPUT FORWARD; do
      in_ns "$ns" iptables-legacy -I "$hook" 1 -j "$PARTITION_CHAIN"
    done
  done
}

heal_cluster() {
  local ns
  for ns in $(wan_namespaces "$1"); do partition_rules_clear "$ns"; done
}

# Clusters (numbers) a partition is in force for, for `status`.
partitioned_clusters() {
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${TB_PREFIX}-c[0-9]+-(cp|node1)\$"); do
    in_ns "$ns" iptables-legacy -nL "$PARTITION_CHAIN" >/dev/null 2>&1 && echo "$ns"
  done | sed -E "s/^${TB_PREFIX}-c([0-9]+)-.*/\1/" | sort -u
}

# WAN delay: inbound TCP connections to PORT on cluster N's gateway (its WAN address) go through
# fed-delay-proxy, which holds every byte DELAY ms in each direction — `tc netem` stand-in (this
# kernel has no sch_netem). A REDIRECT in the gateway's nat table sends them to the proxy on
# PORT+10, which dials the service at 127.0.0.1:PORT. With it on every host, any two are 2×DELAY
# apart for that port's traffic.
delay_port() { echo $(($1 + 10)); }

wan_delay_on() {
  local n=$1 port=$2 ms=$3 proxy=${FED_DELAY_PROXY:-} ns
  [ -x "$proxy" ] || die "delay: set FED_DELAY_PROXY to the fed-delay-proxy binary (build/release/tests/netns/agent/etcdproxy/fed-delay-proxy)"
  ns=$(ns_node "$n" 1)
  wan_delay_off "$n" "$port"
  start_daemon "c$n-delay-$port" "$ns" "$(cdir "$n")/logs/delay-$port.log" "$proxy" \
    --listen "$(wan_gw_ip "$n"):$(delay_port "$port")" --target "127.0.0.1:$port" --delay-ms "$ms" --mode both
  in_ns "$ns" iptables-legacy -t nat -I PREROUTING 1 -i wan0 -p tcp --dport "$port" \
    -m comment --comment fedtb-delay -j REDIRECT --to-ports "$(delay_port "$port")"
}

wan_delay_off() {
  local n=$1 port=$2 ns pidfile
  ns=$(ns_node "$n" 1)
  while in_ns "$ns" iptables-legacy -t nat -D PREROUTING -i wan0 -p tcp --dport "$port" \
    -m comment --comment fedtb-delay -j REDIRECT --to-ports "$(delay_port "$port")" 2>/dev/null; do :; done
  pidfile="$TB_RUN/pids/c$n-delay-$port.pid"
  if [ -f "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; rm -f "$pidfile"; fi
}
