#!/usr/bin/env python3
"""Times of the endpoint-mapping bench's rounds from the API server's audit log.

The API server stamps each request it answers (microseconds, its own clock, which is this
machine's): the round's EndpointMapping create, then the manager's first IpamBlock write and
its write of the mapping's NatMapping. The gateway agent's stamp of the commit that installed
the rule (the NatMapping's status.appliedTime) ends the round. No client of the bench's own is
between the events and their times, so nothing is missed or stamped late under load.

usage: mapping_rounds.py ROUNDS AUDIT_LOG...
ROUNDS: one line per round, "CREATE_US SHARD APPLIED_TIME": the time just before `kubectl create`
(microseconds), the NatMapping that holds the mapping's entry and its status.appliedTime.
Prints p50/p99 of each figure, and one line per round missing from the log.
"""
import bisect
import itertools
import json
import sys
from datetime import datetime

GROUP = "fed.kubectl-fed.io"
WRITES = {"create", "update", "patch", "delete"}


def micros(stamp):
    return round(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1e6)


def audit_writes(paths):
    """(received, done, resource, name) of every answered write of GROUP's objects, in order."""
    out = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if GROUP not in line or '"ResponseComplete"' not in line:
                        continue
                    e = json.loads(line)
                    ref = e.get("objectRef") or {}
                    if e.get("verb") not in WRITES or ref.get("apiGroup") != GROUP or ref.get("subresource"):
                        continue
                    out.append((micros(e["requestReceivedTimestamp"]), micros(e["stageTimestamp"]),
                                ref.get("resource", ""), ref.get("name", "")))
        except FileNotFoundError:
            pass
    out.sort()
    return out


def first(writes, after, resource, name=None):
    """(received, done) of the first write of RESOURCE (NAME) received at or after AFTER."""
    start = bisect.bisect_left(writes, (after,))
    for received, done, res, n in itertools.islice(writes, start, None):
        if res == resource and (name is None or n == name):
            return received, done
    return None, None


def percentiles(values):
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(len(values) * 0.99 + 0.999) - 1)]
    return values[(len(values) - 1) // 2], p99, values[0], values[-1]


def main():
    rounds = [line.split() for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
    writes = audit_writes(sys.argv[2:])
    figures = {k: [] for k in ("server", "client", "ipam", "manager", "agent", "ipam_api", "nat_api")}
    for create_us, shard, applied in rounds:
        create_us, live_us = int(create_us), micros(applied)
        figures["client"].append(live_us - create_us)
        # The manager's writes may reach the API server before it has logged the create's
        # answer, so they are looked for from the create's arrival on.
        arrived, created = first(writes, create_us, "endpointmappings")
        if not created:
            print(f"round at {create_us}: its create is not in the audit log", file=sys.stderr)
            continue
        figures["server"].append(live_us - created)
        nat_arrived, nat = first(writes, arrived, "natmappings", shard)
        if not nat:
            print(f"round at {create_us}: its NatMapping write is not in the audit log", file=sys.stderr)
            continue
        # The gateway may commit before the API server has logged its answer to the write (the
        # watch event goes out first): its part is then under the log's resolution, counted 0.
        figures["nat_api"].append(nat - nat_arrived)
        nat = min(nat, live_us)
        figures["manager"].append(nat - created)
        figures["agent"].append(live_us - nat)
        ipam_arrived, ipam = first(writes, arrived, "ipamblocks")
        if ipam and ipam <= nat:
            figures["ipam"].append(ipam - created)
            figures["ipam_api"].append(ipam - ipam_arrived)
    what = {
        "server": "created -> live (server)",
        "client": "kubectl create -> live",
        "ipam": "  of which created -> IpamBlock written (manager)",
        "manager": "  of which created -> NatMapping written (manager)",
        "agent": "  of which NatMapping written -> live (gateway agent)",
        "ipam_api": "  the API server's own time for the IpamBlock write (arrived -> answered)",
        "nat_api": "  the API server's own time for the NatMapping write (arrived -> answered)",
    }
    for key in ("server", "client", "ipam", "manager", "agent", "ipam_api", "nat_api"):
        if figures[key]:
            p50, p99, lo, hi = (v / 1000 for v in percentiles(figures[key]))
            print(f"{what[key]} over {len(figures[key])}: p50 {p50:.1f} ms, p99 {p99:.1f} ms (min {lo:.1f}, max {hi:.1f})")


if __name__ == "__main__":
    main()
