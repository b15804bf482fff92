#!/usr/bin/env python3
"""Checks `protoc --decode=perfetto.protos.Trace` output of a trace that
calltrace wrote: the first packet clears the incremental state, every
interned name is defined before use, every track is described before its
first event, every slice begins before it ends and slices nest per track.
Prints the counts the report must agree with, in check_chrome.py's form:
calls (slice begins of category call not entered before the data),
never_returned, user, calltrace-lost, overhead.
usage: protoc --decode=... < trace | check_perfetto.py"""
import re
import sys
from collections import defaultdict

def parse(lines):
    """protobuf text format -> list of (field, value or list of pairs)"""
    stack = [[]]
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line == "}":
            done = stack.pop()
            stack[-1][-1] = (stack[-1][-1][0], done)
        elif line.endswith("{"):
            stack[-1].append((line[:-1].strip(), None))
            stack.append([])
        else:
            k, v = line.split(":", 1)
            v = v.strip()
            if v.startswith('"'):
                v = bytes(v[1:-1], "utf-8").decode("unicode_escape")
            stack[-1].append((k, v))
    return stack[0]

def get(msg, key, default=None):
    for k, v in msg:
        if k == key:
            return v
    return default

def get_all(msg, key):
    return [v for k, v in msg if k == key]

def main():
    packets = get_all(parse(sys.stdin), "packet")
    if not packets or get(packets[0], "sequence_flags") != "1":
        sys.exit("the first packet does not clear the incremental state")
    names, cats, tracks = {}, {}, set()
    stacks = defaultdict(list)
    last = defaultdict(int)
    n = defaultdict(int)
    for i, p in enumerate(packets):
        where = f"packet {i}"
        interned = get(p, "interned_data")
        if interned:
            for e in get_all(interned, "event_names"):
                names[get(e, "iid")] = get(e, "name")
            for e in get_all(interned, "event_categories"):
                cats[get(e, "iid")] = get(e, "name")
        td = get(p, "track_descriptor")
        if td:
            tracks.add(get(td, "uuid"))
        te = get(p, "track_event")
        if not te:
            continue
        if get(p, "sequence_flags") != "2":
            sys.exit(f"{where}: an event without SEQ_NEEDS_INCREMENTAL_STATE")
        track = get(te, "track_uuid")
        if track not in tracks:
            sys.exit(f"{where}: track {track} not described yet")
        ts = int(get(p, "timestamp"))
        if ts < last[track]:
            sys.exit(f"{where}: time goes back on track {track}")
        last[track] = ts
        flags = {get(a, "name") for a in get_all(te, "debug_annotations")}
        cat = cats.get(get(te, "category_iids"))
        kind = get(te, "type")
        if kind == "TYPE_SLICE_BEGIN":
            iid = get(te, "name_iid")
            if iid not in names:
                sys.exit(f"{where}: name iid {iid} not interned yet")
            stacks[track].append((names[iid], ts))
            if cat == "call" and "entered_before_data" not in flags:
                n["calls"] += 1
            if cat == "calltrace-overhead":
                n["overhead"] += 1
        elif kind == "TYPE_SLICE_END":
            if not stacks[track]:
                sys.exit(f"{where}: an end with no open slice on {track}")
            name, begin = stacks[track].pop()
            if ts < begin:
                sys.exit(f"{where}: {name} ends before it begins")
            if flags & {"never_returned", "open_at_window_end"}:
                n["never_returned"] += 1
        elif kind == "TYPE_INSTANT":
            n[cat] += 1
        else:
            sys.exit(f"{where}: unexpected type {kind}")
    for track, s in stacks.items():
        if s:
            sys.exit(f"{len(s)} slice(s) left open on track {track}")
    print(" ".join(f"{k}={n[k]}" for k in
                   ("calls", "never_returned", "user", "calltrace-lost",
                    "overhead")))

main()
