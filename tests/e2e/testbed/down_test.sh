#!/usr/bin/env bash
# Fixture cleanup and acceptance 6: after `down`, no process, netns, mount, veth, bridge,
# cgroup or state directory of the testbed is left on the machine.
. "$(dirname "$0")/../lib.sh"
"$TESTBED" down
left=$("$TESTBED" leftovers)
expect_eq "nothing of the testbed is left after down" "$left" ""
# down after a crash: fake one (a stray netns and cgroup with our prefix) and clean it.
ip netns add fedtb-crash-probe
mkdir -p /sys/fs/cgroup/memory/fedtb-crash-probe
"$TESTBED" down
expect_eq "down also removes what a crashed run left" "$("$TESTBED" leftovers)" ""
finish
