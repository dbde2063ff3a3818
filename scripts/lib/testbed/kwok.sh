# shellcheck shell=bash
# --kubelet kwok: kwok plays the kubelet of many fake nodes in one cluster, for scale tests.

start_kwok() {
  local c=$1 nodes=$2 d
  d=$(cdir "$c")
  write_kubeconfig "$d/kwok.kubeconfig" "c$c" "https://127.0.0.1:6443" "$d/pki/ca.crt" "$d/pki/admin.crt" "$d/pki/admin.key"
  start_daemon "c$c-kwok" "$(ns_cp "$c")" "$d/logs/kwok.log" "$TB_KWOK_BIN/kwok" \
    --kubeconfig "$d/kwok.kubeconfig" --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
    --node-lease-duration-seconds 40 --cidr "$(pod_cidr "$c")" --node-ip "$(cp_lan_ip "$c")" \
    --server-address 127.0.0.1:10247
  local k manifest="$d/kwok-nodes.yaml"
  : >"$manifest"
  for k in $(seq 1 "$nodes"); do
    cat >>"$manifest" <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$k
  annotations: { kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0" }
  labels: { type: kwok, kubernetes.io/hostname: kwok-node-$k, kubernetes.io/os: linux, kubernetes.io/role: agent, fedtb.io/cluster: c$c }
spec:
  podCIDR: $(pod_prefix "$c").$(((k - 1) % 256)).0/24
status:
  allocatable: { cpu: "32", memory: 256Gi, pods: "110" }
  capacity: { cpu: "32", memory: 256Gi, pods: "110" }
YAML
  done
  kubectl_c "$c" apply -f "$manifest" >/dev/null || die "c$c: creating kwok nodes failed"
}
