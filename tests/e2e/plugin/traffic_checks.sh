# Sourced by reconfigure_test.sh (c2, `k`, $work): a Service backed by one replica on each of
# c2's nodes, with a PodDisruptionBudget and a graceful stop, and a client loop of real HTTP
# requests to its ClusterIP from node2's network namespace (kube-proxy's rules there outlive
# kubelet restarts). traffic_start before a rollout, traffic_stop after it: issue 7's
# acceptance 6 asks zero failed requests while nodes roll with --drain and maxUnavailable 1.
# scripts/bench/reconfigure uses the pieces: traffic_deploy once, then per measurement
# traffic_loop_start and traffic_loop_stop (which sets TRAFFIC_TOTAL and TRAFFIC_FAILED).
TRAFFIC_NS=reconfigure-traffic

traffic_start() {
  traffic_deploy
  traffic_loop_start
}

traffic_deploy() {
  k c2 create namespace $TRAFFIC_NS >/dev/null
  k c2 -n $TRAFFIC_NS apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      # The endpoint leaves kube-proxy's rules during preStop, before httpd stops.
      terminationGracePeriodSeconds: 15
      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway,
           labelSelector: {matchLabels: {app: web}}}
      containers:
        - name: httpd
          image: fed.local/busybox:1
          command: [httpd, -f, -p, "8080", -h, /www]
          readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}
          lifecycle: {preStop: {exec: {command: [sleep, "5"]}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
YAML
  k c2 -n $TRAFFIC_NS rollout status deploy/web --timeout=120s >/dev/null &&
    pass "traffic: 2 httpd replicas Ready" || fail "traffic: the replicas did not become Ready"
  expect_eq "traffic: one replica on each node" \
    "$(k c2 -n $TRAFFIC_NS get pods -l app=web -o jsonpath='{.items[*].spec.nodeName}' | tr ' ' '\n' | sort -u | tr '\n' ' ')" \
    "node1 node2 "
  TRAFFIC_SVC=$(k c2 -n $TRAFFIC_NS get svc web -o jsonpath='{.spec.clusterIP}')
  eventually 30 "traffic: the ClusterIP answers from node2's namespace" \
    "$TESTBED" exec c2 node2 -- curl -sf --max-time 2 -o /dev/null "http://$TRAFFIC_SVC/"
}

traffic_loop_start() {
  rm -f "$work/traffic.stop"
  # One line per request; a request that is not answered 200 within 2 s is a failure.
  "$TESTBED" exec c2 node2 -- bash -c "
    while [ ! -e $work/traffic.stop ]; do
      code=\$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' http://$TRAFFIC_SVC/)
      [ \"\$code\" = 200 ] && echo ok || echo \"fail \$(date +%T.%N) \$code\"
      sleep 0.05
    done" >"$work/traffic.log" 2>&1 &
  TRAFFIC_PID=$!
}

traffic_loop_stop() {
  touch "$work/traffic.stop"
  wait "$TRAFFIC_PID" 2>/dev/null || true
  TRAFFIC_TOTAL=$(wc -l <"$work/traffic.log")
  TRAFFIC_FAILED=$(grep -vc '^ok$' "$work/traffic.log" || true)
  grep -v '^ok$' "$work/traffic.log" | head -5 >&2 || true
}

traffic_stop() {
  traffic_loop_stop
  echo "# traffic during the rollout: $TRAFFIC_TOTAL requests, $TRAFFIC_FAILED failed"
  [ "$TRAFFIC_TOTAL" -ge 100 ] && pass "traffic: $TRAFFIC_TOTAL requests sent during the rollout" ||
    fail "traffic: only $TRAFFIC_TOTAL requests were sent"
  expect_eq "traffic: no request failed while the nodes rolled" "$TRAFFIC_FAILED" 0
}

traffic_restore() {
  touch "$work/traffic.stop" 2>/dev/null
  k c2 delete namespace $TRAFFIC_NS --ignore-not-found --wait=false
}
