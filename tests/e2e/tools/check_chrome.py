#!/usr/bin/env python3
"""Checks a Trace Event Format file as calltrace writes it: valid JSON,
pid, tid and ts on every event, B/E slices that begin before they end and
nest per thread with matching names.  Prints the counts the report must
agree with: calls (B of category call, not entered before the data),
never_returned, user events, lost records, overhead slices."""
import json
import sys
from collections import defaultdict

def main(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    stacks = defaultdict(list)
    last = {}
    n = defaultdict(int)
    for i, e in enumerate(doc["traceEvents"]):
        where = f"{path}: event {i}"
        for k in ("ph", "pid", "tid", "name"):
            if k not in e:
                sys.exit(f"{where}: no {k}")
        if e["ph"] == "M":
            continue
        ts = e["ts"]
        key = (e["pid"], e["tid"])
        if e["ph"] in "BE" and ts < last.get(key, ts):
            sys.exit(f"{where}: time goes back on {key}")
        last[key] = ts
        if e["ph"] == "B":
            stacks[key].append((e["name"], ts, e.get("args", {})))
            if e.get("cat") == "call" and not e.get("args", {}).get(
                    "entered_before_data"):
                n["calls"] += 1
            if e.get("cat") == "calltrace-overhead":
                n["overhead"] += 1
        elif e["ph"] == "E":
            if not stacks[key]:
                sys.exit(f"{where}: E with no open slice on {key}")
            name, begin, b_args = stacks[key].pop()
            if name != e["name"]:
                sys.exit(f"{where}: E {e['name']!r} closes {name!r}")
            if ts < begin:
                sys.exit(f"{where}: ends before it begins")
            args = e.get("args", {})
            if args.get("never_returned") or args.get("open_at_window_end"):
                n["never_returned"] += 1
            # a viewer pairs E with B by name and args (speedscope warns
            # and repairs the stack otherwise); never_returned aside
            if {k: v for k, v in args.items() if k != "never_returned"} \
                    != b_args:
                sys.exit(f"{where}: E's args differ from its B's")
        elif e["ph"] == "i" and e.get("cat") == "calltrace-window":
            n["never_returned"] += 1
        elif e["ph"] == "i":
            n["user" if e.get("cat") == "user" else e.get("cat", "i")] += 1
        else:
            sys.exit(f"{where}: unexpected ph {e['ph']!r}")
    for key, s in stacks.items():
        if s:
            sys.exit(f"{path}: {len(s)} slice(s) left open on {key}")
    print(" ".join(f"{k}={n[k]}" for k in
                   ("calls", "never_returned", "user", "calltrace-lost",
                    "overhead")))

main(sys.argv[1])
