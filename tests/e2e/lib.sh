# shellcheck shell=bash
# Helpers for e2e tests written in bash: each check prints what it verified; the first
# failure ends the test with a non-zero exit and the evidence.
set -euo pipefail

REPO=${FED_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TESTBED="$REPO/scripts/testbed"
# shellcheck source=../../scripts/lib/fed_agent_pids.sh
source "$REPO/scripts/lib/fed_agent_pids.sh"
checks=0

KUBECTL=${KUBECTL:-$("$TESTBED" kubectl-path)}
export PATH="$(dirname "$KUBECTL"):$PATH"   # scripts in the tests call plain `kubectl`
k() { local c=$1; shift; kubectl --kubeconfig "$("$TESTBED" kubeconfig "$c")" "$@"; }

last_pass="" fail_message="" last_error=""
# (The seconds since the test started end each line: where a long test's minutes go, in CI's log.)
pass() { checks=$((checks + 1)); last_pass=$*; echo "ok $checks - $* [${SECONDS}s]"; }
fail() { fail_message=$*; echo "FAIL - $*" >&2; exit 1; }
# What `set -e` stopped on, kept quietly (a command failing in a condition does not count).
set -o errtrace
trap 'last_error="${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND (exit $?)"' ERR
# failure_summary: the failure again, for the end of a failed test's output: its EXIT handler
# calls it after dumping logs, so a log kept only in part (CI keeps its head and tail) names it.
failure_summary() {
  echo "FAILED after check $checks (${last_pass:-none passed}): ${fail_message:-a command failed: ${last_error:-unknown}}" >&2
}

# stop_background_jobs: kills what a failed test left running in the background (a load loop):
# it would hold the test's output open, and ctest waits for that until the test's timeout.
stop_background_jobs() {
  local p
  for p in $(jobs -pr); do kill "$p" 2>/dev/null || true; done
}

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() { [ "$2" = "$3" ] && pass "$1" || fail "$1: got '$2', want '$3'"; }

# eventually SECONDS WHAT CMD...: retries CMD until it succeeds.
eventually() {
  local seconds=$1 what=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $deadline ] && fail "$what (not true within ${seconds}s)"
    sleep 1
  done
  pass "$what"
}

# netmap IP FROM TO: IP's address once FROM (a CIDR holding it) is mapped onto TO, as NETMAP does.
netmap() {
  python3 -c 'import ipaddress,sys
ip=ipaddress.ip_address(sys.argv[1]); a=ipaddress.ip_network(sys.argv[2]); b=ipaddress.ip_network(sys.argv[3])
print(ipaddress.ip_address(int(b.network_address) + (int(ip) - int(a.network_address))))' "$@"
}

finish() { echo "$checks passed, 0 failed"; }
