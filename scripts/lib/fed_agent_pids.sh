# shellcheck shell=bash
# The fed-agent processes of a testbed on this machine, found the one way the e2e tests and
# the benches need (its nodes are namespaces here, not machines): by role, then by the
# network namespace, cgroup or pod they belong to. Sourced by tests/e2e/lib.sh and the benches.

# fed_agent_pids ROLE [FILTER...]: the pids of the fed-agent processes of ROLE (node, manager,
# tenancy, podpreset, etcd-proxy, or any), one per line, that match every FILTER:
#   netns=NAME    in the network namespace /run/netns/NAME (a hostNetwork process of a node:
#                 fedtb-c1-node1)
#   cgroup=TEXT   in a cgroup whose path holds TEXT (every pod of a node: fedtb-c1-node1)
#   pod=NAME      of the pod NAME (its POD_NAME or HOSTNAME)
fed_agent_pids() {
  local role=$1 pattern want_ns="" p f ok
  shift
  pattern='(^|/)fed-agent (node|manager|tenancy|podpreset|etcd-proxy)( |$)'
  [ "$role" = any ] || pattern="(^|/)fed-agent $role( |\$)"
  for f in "$@"; do
    case $f in netns=*) want_ns=$(stat -L -c %i "/run/netns/${f#netns=}") || return 1 ;; esac
  done
  for p in $(pgrep -f "$pattern"); do
    ok=1
    for f in "$@"; do
      case $f in
        netns=*) [ "$(stat -L -c %i "/proc/$p/ns/net" 2>/dev/null)" = "$want_ns" ] || ok=0 ;;
        cgroup=*) grep -qF -- "${f#cgroup=}" "/proc/$p/cgroup" 2>/dev/null || ok=0 ;;
        pod=*) tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxE "(POD_NAME|HOSTNAME)=${f#pod=}" || ok=0 ;;
        *) echo "fed_agent_pids: unknown filter '$f' (netns=, cgroup= or pod=)" >&2; return 2 ;;
      esac
    done
    if [ "$ok" = 1 ]; then echo "$p"; fi
  done
}

# fed_agent_pid ROLE [FILTER...]: the first of them; fails when there is none.
fed_agent_pid() {
  local p
  p=$(fed_agent_pids "$@" | head -n 1)
  [ -n "$p" ] && echo "$p"
}
