# The manager's high availability inside one host (docs/HA.md), sourced by datapath_test.sh:
# `init` runs the host's federation etcd member on the gateway node and two manager replicas
# that elect their leader through it. Exactly one leads: it holds the leader label (which the
# webhook Service selects) and the fed-leader ConfigMap names it. Its process SIGKILLed, the
# standby takes over — the ConfigMap names it with the next epoch, the label and the webhook's
# endpoint move — and the killed replica comes back as a Ready standby without the label.

# leader_pods: the names of the manager pods labelled leader.
leader_pods() {
  k c1 -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-manager,kubectl-fed.io/manager-leader=true \
    -o jsonpath='{.items[*].metadata.name}'
}

# leader_data KEY: a field of the fed-leader ConfigMap.
leader_data() {
  k c1 -n kubectl-fed-system get cm fed-leader -o jsonpath="{.data.$1}"
}

# one_leader_published POD: POD alone is labelled, fed-leader names it, the webhook reaches it.
one_leader_published() {
  local pod=$1 ip
  [ "$(leader_pods)" = "$pod" ] || return 1
  case "$(leader_data holder)" in "c1/${pod}_"*) ;; *) return 1 ;; esac
  ip=$(k c1 -n kubectl-fed-system get pod "$pod" -o jsonpath='{.status.podIP}')
  [ "$(k c1 -n kubectl-fed-system get endpointslices -l kubernetes.io/service-name=fed-manager-webhook \
    -o jsonpath='{.items[*].endpoints[?(@.conditions.ready==true)].addresses[*]}')" = "$ip" ]
}

# published_leader: exactly one pod is labelled leader and one_leader_published holds for it.
published_leader() {
  local pods
  pods=$(leader_pods)
  [ -n "$pods" ] && [ "$pods" = "${pods%% *}" ] && one_leader_published "$pods"
}

manager_ha() {
  local mode=$1
  eventually 120 "$mode: the federation etcd member runs on c1's gateway node" bash -c \
    "kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-etcd -o jsonpath='{range .items[*]}{.spec.nodeName} {.status.containerStatuses[0].ready}{\"\\n\"}{end}' | grep -qx 'node1 true'"
  k c1 -n kubectl-fed-system rollout status deploy/fed-manager --timeout=120s >/dev/null
  expect_eq "$mode: both manager replicas are Ready (the standby too)" \
    "$(k c1 -n kubectl-fed-system get deploy fed-manager -o jsonpath='{.status.readyReplicas}/{.spec.replicas}')" 2/2
  eventually 30 "$mode: exactly one manager replica is labelled leader" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-manager,kubectl-fed.io/manager-leader=true -o name | wc -l)\" = 1 ]"
  local leader standby epoch pid
  # Whoever leads once it is published: a leadership that moved meanwhile (a renewal past its
  # deadline while the federation etcd starts) is the election working, not a failure.
  eventually 30 "$mode: fed-leader names the labelled leader and the webhook Service reaches it alone" \
    published_leader
  leader=$(leader_pods)
  echo "# $mode: the leader is $leader (host $(leader_data host), epoch $(leader_data epoch))"
  standby=$(k c1 -n kubectl-fed-system get pods -l app.kubernetes.io/name=fed-manager -o jsonpath='{.items[*].metadata.name}' | tr ' ' '\n' | grep -vx "$leader")
  expect_eq "$mode: fed-leader's host is c1" "$(leader_data host)" c1
  epoch=$(leader_data epoch)

  # The active manager's process alone, SIGKILLed: no resignation, the standby waits out the
  # lease (600 ms) and takes over.
  pid=$(fed_agent_pid manager "pod=$leader") || fail "$mode: no process of $leader on this machine"
  kill -9 "$pid"
  eventually 30 "$mode: the standby $standby took over after the leader's SIGKILL" one_leader_published "$standby"
  expect_eq "$mode: fed-leader's epoch moved on" "$(leader_data epoch)" $((epoch + 1))
  local failover
  failover=$(leader_data failoverSeconds)
  pass "$mode: the new leader measured $failover s from the last renewal it saw to its takeover"
  k c1 -n kubectl-fed-system get events --field-selector involvedObject.name=fed-leader,reason=LeaderElected \
    -o jsonpath='{.items[*].message}' | grep -q "$standby" \
    && pass "$mode: an Event LeaderElected on fed-leader names $standby" \
    || fail "$mode: no LeaderElected Event for $standby: $(k c1 -n kubectl-fed-system get events --field-selector involvedObject.name=fed-leader -o jsonpath='{.items[*].message}')"
  # The killed replica's container restarts as a standby: Ready again, not labelled.
  k c1 -n kubectl-fed-system rollout status deploy/fed-manager --timeout=120s >/dev/null
  eventually 60 "$mode: $leader restarted as a Ready standby without the leader label" bash -c \
    "[ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n kubectl-fed-system get pod $leader -o jsonpath='{.status.containerStatuses[0].ready}/{.metadata.labels.kubectl-fed\.io/manager-leader}')\" = true/ ]"
  expect_eq "$mode: still exactly one leader" "$(leader_pods)" "$standby"
  ok_run hosts status --context c1 -o json
  expect_eq "$mode: status: c1 leads, its etcd member is healthy, 2/2 managers, the leader pod is $standby" \
    "$(jq -r '.hosts[0] | "\(.name) \(.role) \(.etcd.state) \(.managers.ready)/\(.managers.total) \(.managers.leaderPod)"' "$work/hosts.out")" \
    "c1 leader healthy 2/2 $standby"
  expect_eq "$mode: status: the leader is $standby's process, epoch $((epoch + 1))" \
    "$(jq -r '"\(.leader.holder | split("_")[0]) \(.leader.epoch)"' "$work/hosts.out")" "c1/$standby $((epoch + 1))"

  # Frozen, not killed (SIGSTOP for 2 s): the leader misses its renew deadline, the other
  # replica takes over, and the thawed process replaces its own image — same pid, no container
  # restart (no restart back-off) — and stands by.
  local restarts
  pid=$(fed_agent_pid manager "pod=$standby") || fail "$mode: no process of $standby on this machine"
  restarts=$(k c1 -n kubectl-fed-system get pod "$standby" -o jsonpath='{.status.containerStatuses[0].restartCount}')
  kill -STOP "$pid"
  sleep 2
  kill -CONT "$pid"
  eventually 30 "$mode: $leader took over from the frozen leader $standby" one_leader_published "$leader"
  eventually 60 "$mode: thawed, $standby replaced its image (pid $pid, incarnation 1) without a container restart and stands by, Ready" bash -c \
    "tr '\\0' '\\n' </proc/$pid/environ | grep -qx FED_AGENT_INCARNATION=1 &&
     [ \"\$(kubectl --kubeconfig $("$TESTBED" kubeconfig c1) -n kubectl-fed-system get pod $standby -o jsonpath='{.status.containerStatuses[0].restartCount}/{.status.containerStatuses[0].ready}/{.metadata.labels.kubectl-fed\\.io/manager-leader}')\" = '$restarts/true/' ]"
}
