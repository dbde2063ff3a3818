# shellcheck shell=bash
# Generates every key and certificate of one cluster with OpenSSL: the cluster CA, etcd's CA,
# serving and client certificates for each component, and the service-account signing key.

# issue_cert DIR NAME CA SUBJECT [SAN] [EXT]: writes DIR/NAME.{key,crt} signed by DIR/CA.
issue_cert() {
  local dir=$1 name=$2 ca=$3 subj=$4 san=${5:-} usage=${6:-clientAuth}
  [ -f "$dir/$name.crt" ] && return 0
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/$name.key" 2>/dev/null
  local ext="$dir/$name.ext"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -n "$san" ] && echo "subjectAltName=$san"
  } >"$ext"
  openssl req -new -key "$dir/$name.key" -subj "$subj" -out "$dir/$name.csr" 2>/dev/null
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/$ca.crt" -CAkey "$dir/$ca.key" \
    -CAcreateserial -days 3650 -sha256 -extfile "$ext" -out "$dir/$name.crt" 2>/dev/null
  rm -f "$dir/$name.csr" "$dir/$name.ext"
}

issue_ca() {
  local dir=$1 name=$2 cn=$3
  [ -f "$dir/$name.crt" ] && return 0
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/$name.key" 2>/dev/null
  openssl req -x509 -new -key "$dir/$name.key" -subj "/CN=$cn" -days 3650 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$dir/$name.crt" 2>/dev/null
}

# write_kubeconfig FILE CLUSTER SERVER CA CERT KEY: a kubeconfig with embedded credentials.
write_kubeconfig() {
  local file=$1 cluster=$2 server=$3 ca=$4 cert=$5 key=$6
  cat >"$file" <<KCFG
apiVersion: v1
kind: Config
clusters:
- name: $cluster
  cluster:
    server: $server
    certificate-authority-data: $(base64 -w0 <"$ca")
users:
- name: $cluster-$(basename "$cert" .crt)
  user:
    client-certificate-data: $(base64 -w0 <"$cert")
    client-key-data: $(base64 -w0 <"$key")
contexts:
- name: $cluster
  context:
    cluster: $cluster
    user: $cluster-$(basename "$cert" .crt)
current-context: $cluster
KCFG
  chmod 600 "$file"
}

cluster_pki() {
  local c=$1 nodes=$2 d
  d="$(cdir "$c")/pki"
  mkdir -p "$d" && chmod 700 "$d"
  issue_ca "$d" ca "fedtb-c$c-ca"
  issue_ca "$d" etcd-ca "fedtb-c$c-etcd-ca"
  issue_cert "$d" etcd-server etcd-ca "/CN=etcd" "IP:127.0.0.1,DNS:localhost" "serverAuth,clientAuth"
  issue_cert "$d" apiserver-etcd-client etcd-ca "/CN=kube-apiserver-etcd-client"
  issue_cert "$d" apiserver ca "/CN=kube-apiserver" \
    "IP:127.0.0.1,IP:$(cp_lan_ip "$c"),IP:$(cp_wan_ip "$c"),IP:$(kube_service_ip "$c"),DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost" \
    serverAuth
  issue_cert "$d" apiserver-kubelet-client ca "/CN=kube-apiserver-kubelet-client"
  issue_cert "$d" admin ca "/O=system:masters/CN=fedtb-admin"
  issue_cert "$d" controller-manager ca "/CN=system:kube-controller-manager"
  issue_cert "$d" scheduler ca "/CN=system:kube-scheduler"
  issue_cert "$d" kube-proxy ca "/CN=system:kube-proxy"
  # The front-proxy pair, as kubeadm makes it: the API server presents it to aggregated API
  # servers and, through its admission configuration, to webhooks (write_admission_config).
  issue_ca "$d" front-proxy-ca "fedtb-c$c-front-proxy-ca"
  issue_cert "$d" front-proxy-client front-proxy-ca "/CN=front-proxy-client"
  if [ ! -f "$d/sa.key" ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$d/sa.key" 2>/dev/null
    openssl pkey -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
  fi
  local k
  for k in $(seq 1 "$nodes"); do
    issue_cert "$d" "node$k" ca "/O=system:nodes/CN=system:node:node$k"
    issue_cert "$d" "node$k-serving" ca "/CN=node$k" "IP:$(node_lan_ip "$c" "$k"),DNS:node$k" serverAuth
  done
  local cd_; cd_=$(cdir "$c")
  # The admin kubeconfig reaches the apiserver through the loopback forward on the host;
  # components inside the namespaces use the control plane's LAN address.
  write_kubeconfig "$cd_/admin.kubeconfig" "c$c" "https://127.0.0.1:$(host_port "$c")" "$d/ca.crt" "$d/admin.crt" "$d/admin.key"
  write_kubeconfig "$cd_/admin-internal.kubeconfig" "c$c" "https://$(cp_wan_ip "$c"):6443" "$d/ca.crt" "$d/admin.crt" "$d/admin.key"
  write_kubeconfig "$cd_/controller-manager.kubeconfig" "c$c" "https://127.0.0.1:6443" "$d/ca.crt" "$d/controller-manager.crt" "$d/controller-manager.key"
  write_kubeconfig "$cd_/scheduler.kubeconfig" "c$c" "https://127.0.0.1:6443" "$d/ca.crt" "$d/scheduler.crt" "$d/scheduler.key"
  write_kubeconfig "$cd_/kube-proxy.kubeconfig" "c$c" "https://$(cp_lan_ip "$c"):6443" "$d/ca.crt" "$d/kube-proxy.crt" "$d/kube-proxy.key"
  for k in $(seq 1 "$nodes"); do
    mkdir -p "$(ndir "$c" "$k")"
    write_kubeconfig "$(ndir "$c" "$k")/kubelet.kubeconfig" "c$c" "https://$(cp_lan_ip "$c"):6443" "$d/ca.crt" "$d/node$k.crt" "$d/node$k.key"
  done
}
