#!/usr/bin/env bash
# The listening sockets of kubectl-fed's processes on a host cluster (docs/SECURITY.md,
# "Listening sockets"), on the shared testbed after the demo, which leaves c1 a federation host
# (managers, node agents). Every TCP socket a fed-agent process listens on is enumerated from
# its own network namespace and must be one the inventory names; then each is called without
# credentials: health answers its probes and serves no /metrics, /metrics refuses a caller
# without a token (401) and one whose user may not read it (403) and serves a ServiceAccount
# bound to kubectl-fed:metrics-reader, as a cluster's Prometheus would be; the virtual kubelet
# refuses a TLS client without a certificate. The webhook port is listed and must be TLS-only:
# what it still accepts is the open gap the document names.
source "$(dirname "$0")/../lib.sh"
work=$(mktemp -d)
cleanup() {
  local rc=$?
  k c1 delete clusterrolebinding e2e-listeners-prometheus --ignore-not-found >/dev/null 2>&1 || true
  k c1 -n default delete sa e2e-prometheus e2e-nobody --ignore-not-found >/dev/null 2>&1 || true
  rm -rf "$work"
  [ "$rc" = 0 ] || failure_summary
}
trap cleanup EXIT

role_of() { tr '\0' ' ' <"/proc/$1/cmdline" | awk '{print $2}'; }
# "ADDRESS:PORT" of each TCP socket process $1 listens on, seen from its network namespace.
listening() { nsenter -t "$1" -n ss -ltnpH | awk -v p="pid=$1," 'index($0, p) {print $4}' | sort -u; }
in_netns() { local p=$1; shift; nsenter -t "$p" -n "$@"; }

pids=$(fed_agent_pids any cgroup=fedtb-c1-node)  # c1's nodes and pods: their cgroups name the node
[ -n "$pids" ] || fail "no fed-agent process of c1 found (is the demo's federation still up?)"
roles=$(for p in $pids; do role_of "$p"; done | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')
pass "c1 runs fed-agent processes: $roles"

k c1 -n default create sa e2e-prometheus >/dev/null
k c1 -n default create sa e2e-nobody >/dev/null
k c1 create clusterrolebinding e2e-listeners-prometheus --clusterrole kubectl-fed:metrics-reader \
  --serviceaccount default:e2e-prometheus >/dev/null
allowed=$(k c1 -n default create token e2e-prometheus --duration 10m)
nobody=$(k c1 -n default create token e2e-nobody --duration 10m)

# status of an HTTP(S) GET from inside the process's namespace; 000 when no answer came.
code() { local p=$1; shift; in_netns "$p" curl -sk -o "$work/body" -w '%{http_code}' --max-time 10 "$@" || true; }

sockets=0
for p in $pids; do
  role=$(role_of "$p")
  for address in $(listening "$p"); do
    sockets=$((sockets + 1))
    port=${address##*:}
    case $role:$port in
      *:9440)
        expect_eq "$role (pid $p) $address: health answers its probe" "$(code "$p" "http://127.0.0.1:$port/healthz")" 200
        expect_eq "$role (pid $p) $address: health serves no /metrics" "$(code "$p" "http://127.0.0.1:$port/metrics")" 404 ;;
      *:9441)
        expect_eq "$role (pid $p) $address: /metrics is not served in plain HTTP" "$(code "$p" "http://127.0.0.1:$port/metrics")" 000
        expect_eq "$role (pid $p) $address: /metrics without a token: 401" "$(code "$p" "https://127.0.0.1:$port/metrics")" 401
        expect_eq "$role (pid $p) $address: /metrics with a forged token: 401" \
          "$(code "$p" -H 'Authorization: Bearer forged' "https://127.0.0.1:$port/metrics")" 401
        expect_eq "$role (pid $p) $address: /metrics for a user without the right: 403" \
          "$(code "$p" -H "Authorization: Bearer $nobody" "https://127.0.0.1:$port/metrics")" 403
        expect_eq "$role (pid $p) $address: the metrics reader scrapes /metrics" \
          "$(code "$p" -H "Authorization: Bearer $allowed" "https://127.0.0.1:$port/metrics")" 200
        grep -q "^fed_build_info{.*role=\"$role\"} 1$" "$work/body" && pass "$role (pid $p): the scrape holds fed_build_info of role $role" ||
          fail "$role (pid $p): no fed_build_info in the scrape: $(head -c 300 "$work/body")" ;;
      manager:10250)
        # The handshake asks for a certificate the API server's client CA signed: no answer.
        expect_eq "manager (pid $p) $address: the virtual kubelet refuses a client without a certificate" \
          "$(code "$p" "https://127.0.0.1:$port/containerLogs/default/x/y")" 000 ;;
      manager:9443)
        expect_eq "manager (pid $p) $address: the pod webhook speaks TLS only" "$(code "$p" "http://127.0.0.1:$port/mutate-pods")" 000 ;;
      *)
        fail "$role (pid $p) listens on $address, which the inventory (docs/SECURITY.md) does not name" ;;
    esac
  done
done
[ "$sockets" -ge 4 ] && pass "$sockets listening sockets checked" || fail "only $sockets listening sockets found"
finish
