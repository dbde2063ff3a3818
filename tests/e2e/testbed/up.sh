#!/usr/bin/env bash
# Fixture: the shared testbed every e2e test of a run uses (3 clusters x 2 real nodes).
. "$(dirname "$0")/../lib.sh"
"$TESTBED" up --clusters 3 --nodes 2 ${FED_E2E_UP_FLAGS:-}
pass "scripts/testbed up --clusters 3 --nodes 2"
finish
