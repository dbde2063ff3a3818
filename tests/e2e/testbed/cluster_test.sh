#!/usr/bin/env bash
# Testbed acceptance 1-4 on the shared 3x2 testbed: Ready nodes everywhere, a Deployment
# whose pods serve across nodes (logs, exec, pod IPs, a Service), namespace deletion and
# garbage collection, ReplicaSet self-healing, RBAC enforcement, one node killed and started
# again (`kill --node`, `start --node`).
. "$(dirname "$0")/../lib.sh"

for c in c1 c2 c3; do
  ready=$(k $c get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True)
  expect_eq "$c has 2 Ready nodes" "$ready" 2
done

ns=tb-e2e-$$
k c1 create namespace $ns >/dev/null
k c1 -n $ns apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 3
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      topologySpreadConstraints:
      - { maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: { matchLabels: { app: web } } }
      containers:
      - name: httpd
        image: fed.local/busybox:1
        command: ["/bin/sh", "-c", "echo serving on \$(hostname -i); exec httpd -f -v -p 8080 -h /www"]
        readinessProbe: { httpGet: { path: /, port: 8080 }, periodSeconds: 1 }
YAML
k c1 -n $ns rollout status deploy/web --timeout=120s >/dev/null && pass "Deployment of 3 busybox httpd replicas is Ready"

pod_on() { k c1 -n $ns get pod -l app=web -o jsonpath="{.items[?(@.spec.nodeName==\"$1\")].metadata.name}" | cut -d' ' -f1; }
ip_on() { k c1 -n $ns get pod -l app=web -o jsonpath="{.items[?(@.spec.nodeName==\"$1\")].status.podIP}" | cut -d' ' -f1; }
p1=$(pod_on node1); ip2=$(ip_on node2)
[ -n "$p1" ] && [ -n "$ip2" ] || fail "replicas not spread over node1 and node2"
k c1 -n $ns logs "$p1" | grep -q "serving on" && pass "kubectl logs returns the container's output"
body=$(k c1 -n $ns exec "$p1" -- timeout 5 wget -qO- "http://$ip2:8080/")
expect_eq "kubectl exec wget from node1's pod to node2's pod IP" "$body" "fedtb busybox"

k c1 -n $ns expose deploy web --port 80 --target-port 8080 >/dev/null
svc=$(k c1 -n $ns get svc web -o jsonpath='{.spec.clusterIP}')
eventually 30 "Service ClusterIP $svc answers through kube-proxy" k c1 -n $ns exec "$p1" -- timeout 3 wget -qO- "http://$svc/"

# ReplicaSet self-healing: a deleted pod comes back.
victim=$(pod_on node2)
k c1 -n $ns delete pod "$victim" --wait=false >/dev/null
eventually 60 "the ReplicaSet replaces a deleted pod" \
  bash -c "[ \$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n $ns get pods -l app=web --field-selector=status.phase=Running -o name | grep -v $victim | wc -l) -ge 3 ]"

# RBAC: a ServiceAccount without bindings is refused, and can-i agrees.
k c1 -n $ns create serviceaccount nobody >/dev/null
expect_eq "kubectl auth can-i for an unbound ServiceAccount" \
  "$(k c1 auth can-i list pods -n $ns --as system:serviceaccount:$ns:nobody || true)" "no"
token=$(k c1 -n $ns create token nobody)
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert <(k c1 config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d) \
  -H "Authorization: Bearer $token" "https://127.0.0.1:16001/api/v1/namespaces/$ns/pods")
expect_eq "the API server answers the unbound ServiceAccount with 403" "$code" 403

# One node lost (`kill --node`): its kubelet, containerd and containers die, the control plane
# and the other node go on; `start --node` brings it back Ready on a fresh heartbeat.
# (Running: present and not a zombie; PID 1 of this machine may reap the orphans late.)
running() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $s != Z* ]]; }
"$TESTBED" kill c3 --node node2 >/dev/null
! running "$(cat /run/fedtb/pids/c3-node2-kubelet.pid)" && pass "kill c3 --node node2: its kubelet is gone" || fail "c3/node2's kubelet still runs"
[ -z "$(ip netns pids fedtb-c3-node2)" ] && pass "kill c3 --node node2: nothing runs in its namespace" || fail "left in fedtb-c3-node2: $(ip netns pids fedtb-c3-node2 | tr '\n' ' ')"
running "$(cat /run/fedtb/pids/c3-node1-kubelet.pid)" && k c3 get nodes >/dev/null \
  && pass "kill c3 --node node2: node1's kubelet and c3's API server go on" || fail "c3 lost more than node2"
"$TESTBED" start c3 --node node2 >/dev/null
expect_eq "start c3 --node node2: Ready again" \
  "$(k c3 get node node2 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" True

# Namespace deletion runs the namespace and garbage-collector controllers to completion.
k c1 delete namespace $ns --timeout=120s >/dev/null
eventually 60 "namespace $ns and its pods are gone" bash -c "! kubectl --kubeconfig $("$TESTBED" kubeconfig c1) get namespace $ns"
finish
