#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a call leaves the link idle: reads a HIPFILE_TRACE_FILE trace (lib/staging/trace.hpp) and
says, per request on the workers, how long the call ran before its first copy could start (head),
how long after its last copy finished it returned (tail), how long the link had no copy queued in
between (gaps, and those in the first 2 ms of copying), the link's rate from first copy to last
against the call's rate, and the rate of one copy while it ran (copy_gbps: what page-cache reads
beside the copies leave the link).

    HIPFILE_TRACE_FILE=/tmp/t.csv hipfile-io ... ; python3 bench/timeline.py /tmp/t.csv

Times are microseconds; the figures are medians over the requests (the first one, which starts
the workers and makes their lanes, is left out when there are more)."""

import argparse
import json
import statistics
import sys


def load(path):
    requests, copies = {}, {}
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            kind, *rest = line.strip().split(",")
            values = [int(v) for v in rest]
            if kind == "request":
                rid, offset, size, participants, begin, end = values
                requests[rid] = dict(offset=offset, size=size, participants=participants, begin=begin, end=end)
            elif kind == "copy":
                rid, thread, offset, size, claimed, slot_free, read_done, queued, gstart, gend = values
                copies.setdefault(rid, []).append(dict(thread=thread, offset=offset, size=size, claimed=claimed,
                                                       slot_free=slot_free, read_done=read_done, queued=queued,
                                                       start=gstart, end=gend))
    return requests, copies


def idle_inside(intervals):
    """Time between the first start and the last end that no interval covers."""
    intervals = sorted(intervals)
    idle, reach = 0, intervals[0][1]
    for a, b in intervals[1:]:
        if a > reach:
            idle += a - reach
        reach = max(reach, b)
    return idle


def copy_rate(timed):
    """Bytes per ns of the median copy while it ran, taking the copies as the link runs them: one
    at a time (an H200's host-to-device copies do), each from its start or the previous one's end."""
    rates, previous_end = [], None
    for c in sorted(timed, key=lambda c: c["end"]):
        began = c["start"] if previous_end is None else max(c["start"], previous_end)
        if c["end"] > began:
            rates.append(c["size"] / (c["end"] - began))
        previous_end = c["end"]
    return statistics.median(rates) if rates else 0.0


def figures(request, copies):
    timed = [c for c in copies if c["start"] > 0 and c["end"] > 0]
    if not timed:
        return None
    begin, end = request["begin"], request["end"]
    first_start = min(c["start"] for c in timed)
    last_end = max(c["end"] for c in timed)
    first_claims = {}
    for c in copies:
        first_claims[c["thread"]] = min(first_claims.get(c["thread"], c["claimed"]), c["claimed"])
    us = 1e-3
    link_ns = max(1, last_end - first_start)
    return {
        "call_us": (end - begin) * us,
        "workers_started_us": (max(first_claims.values()) - begin) * us,
        "first_read_done_us": (min(c["read_done"] for c in copies) - begin) * us,
        "head_us": (first_start - begin) * us,
        "gaps_us": idle_inside([(c["start"], c["end"]) for c in timed]) * us,
        # Of those, the ones in the first 2 ms of copying: while the ramp's small pieces run.
        "gaps_first_2ms_us": idle_inside([(c["start"], min(c["end"], first_start + 2_000_000)) for c in timed
                                          if c["start"] < first_start + 2_000_000]) * us,
        "last_read_done_us": (end - max(c["read_done"] for c in copies)) * us,
        "tail_us": (end - last_end) * us,
        "call_gbps": request["size"] / max(1, end - begin),
        "link_gbps": sum(c["size"] for c in timed) / link_ns,
        "copy_gbps": copy_rate(timed),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace")
    parser.add_argument("--min-size", type=int, default=0, help="only requests of at least this many bytes")
    parser.add_argument("--json", help="write the medians and every request's figures here")
    parser.add_argument("-v", "--verbose", action="store_true", help="a line per request")
    args = parser.parse_args()
    requests, copies = load(args.trace)
    rows = []
    for rid in sorted(requests):
        if requests[rid]["size"] < args.min_size or rid not in copies:
            continue
        f = figures(requests[rid], copies[rid])
        if f:
            rows.append((rid, f))
    if not rows:
        sys.exit(f"{args.trace}: no traced request with copies")
    kept = rows[1:] if len(rows) > 1 else rows
    keys = list(rows[0][1])
    medians = {k: statistics.median(f[k] for _, f in kept) for k in keys}
    if args.verbose:
        print("request " + " ".join(f"{k:>20}" for k in keys))
        for rid, f in rows:
            print(f"{rid:7d} " + " ".join(f"{f[k]:20.2f}" for k in keys))
    print(f"{len(kept)} requests (of {len(rows)}), medians:")
    for k in keys:
        print(f"  {k:20} {medians[k]:10.2f}")
    lost = medians["head_us"] + medians["gaps_us"] + medians["tail_us"]
    print(f"  link idle in a call  {lost:10.2f} us = {lost / medians['call_us']:.3f} of the call")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"medians": medians, "requests": [dict(id=rid, **f) for rid, f in rows]}, out, indent=1)


if __name__ == "__main__":
    main()
