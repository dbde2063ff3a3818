# shellcheck shell=bash
# One cluster's control plane inside its own namespace: etcd (mTLS), kube-apiserver
# (TLS, Node+RBAC authorization), kube-controller-manager and kube-scheduler.

# start_etcd NAME NETNS DIR QUOTA: a single-member etcd on 127.0.0.1:2379 (mTLS with DIR/pki's
# etcd certificates, data in DIR/etcd, log in DIR/logs/etcd.log), metrics on :2381.
start_etcd() {
  local name=$1 ns=$2 d=$3 quota=$4 p="$3/pki"
  start_daemon "$name-etcd" "$ns" "$d/logs/etcd.log" "$TB_BIN/etcd" \
    --name "$name" --data-dir "$d/etcd" \
    --listen-client-urls https://127.0.0.1:2379 --advertise-client-urls https://127.0.0.1:2379 \
    --listen-peer-urls https://127.0.0.1:2380 --initial-advertise-peer-urls https://127.0.0.1:2380 \
    --initial-cluster "$name=https://127.0.0.1:2380" --initial-cluster-state new \
    --cert-file "$p/etcd-server.crt" --key-file "$p/etcd-server.key" \
    --trusted-ca-file "$p/etcd-ca.crt" --client-cert-auth \
    --peer-cert-file "$p/etcd-server.crt" --peer-key-file "$p/etcd-server.key" \
    --peer-trusted-ca-file "$p/etcd-ca.crt" --peer-client-cert-auth \
    --listen-metrics-urls http://127.0.0.1:2381 \
    --quota-backend-bytes "$quota" --snapshot-count 10000 --log-level warn
}

# Writes, as real clusters keep them for their operators: the HA tests read which host's
# manager wrote to a member, and when, from these logs. Reads and the nodes' own heartbeats are
# left out to keep them small.
write_audit_policy() {
  cat >"$1" <<'POLICY'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  verbs: [get, list, watch]
- level: None
  userGroups: ["system:nodes"]
- level: None
  resources: [{group: coordination.k8s.io, resources: [leases]}]
- level: Metadata
POLICY
}

# write_admission_config DIR: the API server's admission configuration, which gives the webhooks
# of kubectl-fed-system its front-proxy client certificate, as a cluster administrator does to
# let `--webhook-caller-auth` webhooks tell its calls from anyone else's (docs/SECURITY.md,
# "Webhook callers"). Webhooks elsewhere get no certificate, as with no configuration.
write_admission_config() {
  local d=$1 p="$1/pki" plugin
  cat >"$d/webhook-client.kubeconfig" <<KCFG
apiVersion: v1
kind: Config
users:
- name: "*.kubectl-fed-system.svc"
  user:
    client-certificate-data: $(base64 -w0 <"$p/front-proxy-client.crt")
    client-key-data: $(base64 -w0 <"$p/front-proxy-client.key")
KCFG
  chmod 600 "$d/webhook-client.kubeconfig"
  {
    echo "apiVersion: apiserver.config.k8s.io/v1"
    echo "kind: AdmissionConfiguration"
    echo "plugins:"
    for plugin in ValidatingAdmissionWebhook MutatingAdmissionWebhook; do
      echo "- name: $plugin"
      echo "  configuration:"
      echo "    apiVersion: apiserver.config.k8s.io/v1"
      echo "    kind: WebhookAdmissionConfiguration"
      echo "    kubeConfigFile: $d/webhook-client.kubeconfig"
    done
  } >"$d/admission.yaml"
}

start_control_plane() {
  local c=$1 d p ns
  d=$(cdir "$c"); p="$d/pki"; ns=$(ns_cp "$c")
  local TB_CPU_CGROUP; TB_CPU_CGROUP=$(ns_cp "$c")
  mkdir -p "$d/logs" "$d/etcd"
  chmod 700 "$d/etcd"
  write_audit_policy "$d/audit-policy.yaml"
  write_admission_config "$d"
  start_etcd "c$c" "$ns" "$d" 4294967296
  # It advertises its WAN address, as a cloud's API server advertises its public or VPC-wide
  # one: the `kubernetes` EndpointSlice then names an address other clusters' pods reach
  # (kubectl fed join reads it there), and the cluster's own nodes route it over the LAN.
  start_daemon "c$c-apiserver" "$ns" "$d/logs/kube-apiserver.log" "$TB_BIN/kube-apiserver" \
    --advertise-address "$(cp_wan_ip "$c")" --bind-address 0.0.0.0 --secure-port 6443 \
    --etcd-servers https://127.0.0.1:2379 --etcd-cafile "$p/etcd-ca.crt" \
    --etcd-certfile "$p/apiserver-etcd-client.crt" --etcd-keyfile "$p/apiserver-etcd-client.key" \
    --client-ca-file "$p/ca.crt" --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" \
    --kubelet-client-certificate "$p/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$p/apiserver-kubelet-client.key" --kubelet-certificate-authority "$p/ca.crt" \
    --service-cluster-ip-range "$(service_cidr "$c")" \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
    --admission-control-config-file "$d/admission.yaml" \
    --requestheader-client-ca-file "$p/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$p/front-proxy-client.crt" --proxy-client-key-file "$p/front-proxy-client.key" \
    --kubelet-preferred-address-types InternalIP --enable-aggregator-routing=true \
    --allow-privileged=true --profiling=false --event-ttl 1h --v 1 \
    --audit-policy-file "$d/audit-policy.yaml" --audit-log-path "$d/logs/audit.log" \
    --audit-log-maxsize 64 --audit-log-maxbackup 1 --audit-log-mode blocking
  wait_for "c$c kube-apiserver /readyz" 120 in_ns "$ns" curl -sfk --max-time 2 https://127.0.0.1:6443/readyz ||
    { tail -20 "$d/logs/kube-apiserver.log" >&2; die "c$c: kube-apiserver did not become ready (log: $d/logs/kube-apiserver.log)"; }
  start_daemon "c$c-controller-manager" "$ns" "$d/logs/kube-controller-manager.log" "$TB_BIN/kube-controller-manager" \
    --kubeconfig "$d/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$d/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$d/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file "$p/sa.key" --root-ca-file "$p/ca.crt" \
    --cluster-signing-cert-file "$p/ca.crt" --cluster-signing-key-file "$p/ca.key" \
    --cluster-cidr "$(pod_cidr "$c")" --service-cluster-ip-range "$(service_cidr "$c")" \
    --allocate-node-cidrs=false --controllers '*,-nodeipam' --profiling=false --v 1
  start_daemon "c$c-scheduler" "$ns" "$d/logs/kube-scheduler.log" "$TB_BIN/kube-scheduler" \
    --kubeconfig "$d/scheduler.kubeconfig" \
    --authentication-kubeconfig "$d/scheduler.kubeconfig" \
    --authorization-kubeconfig "$d/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --profiling=false --v 1
  host_forward "$c"
  wait_for "c$c API on 127.0.0.1:$(host_port "$c")" 30 kubectl_c "$c" get --raw /readyz ||
    die "c$c: API server not reachable through the host forward"
  # kube-apiserver reaches kubelets (logs, exec, /configz) with this identity.
  kubectl_c "$c" get clusterrolebinding fedtb:apiserver-kubelet-client >/dev/null 2>&1 ||
    kubectl_c "$c" create clusterrolebinding fedtb:apiserver-kubelet-client \
      --clusterrole system:kubelet-api-admin --user kube-apiserver-kubelet-client >/dev/null
}
