#!/usr/bin/env python3
"""Checks an SVG flame graph written by calltrace: well-formed XML; the
root frame spans the full width and carries the total (data-total); every
frame's width is its value's share of that width; each frame's children
lie inside it and their values add up to at most its own; the frames'
self values (value minus children) add up to the total exactly.
usage: check_flamegraph.py FILE.svg [EXPECTED_TOTAL]   prints the total"""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"

def main(path, expected=None):
    root = ET.parse(path).getroot()
    total = int(root.get("data-total"))
    full = float(root.get("data-w"))
    frames = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        frames.append(dict(x=float(g.get("data-x")), w=float(g.get("data-w")),
                           d=int(g.get("data-d")), v=int(g.get("data-v")),
                           n=g.get("data-n")))
        rect = g.find(NS + "rect")
        if abs(float(rect.get("width")) - frames[-1]["w"]) > 1e-3:
            sys.exit(f"{path}: rect width differs from data-w")
        if g.find(NS + "title") is None:
            sys.exit(f"{path}: frame without a tooltip")
    if not frames or frames[0]["d"] != 0 or frames[0]["v"] != total:
        sys.exit(f"{path}: the root does not carry the total {total}")
    if abs(frames[0]["w"] - full) > 1e-3:
        sys.exit(f"{path}: the root is {frames[0]['w']} px, not {full}")
    self_sum = 0
    for f in frames:
        if total and abs(f["w"] - f["v"] * full / total) > 1e-3:
            sys.exit(f"{path}: {f['n']}: width {f['w']} for value {f['v']}")
        kids = [c for c in frames if c["d"] == f["d"] + 1 and
                c["x"] >= f["x"] - 1e-3 and c["x"] + c["w"] <= f["x"] + f["w"] + 1e-3]
        if sum(c["v"] for c in kids) > f["v"]:
            sys.exit(f"{path}: {f['n']}: children exceed the frame")
        self_sum += f["v"] - sum(c["v"] for c in kids)
    if self_sum != total:
        sys.exit(f"{path}: frames' self values add up to {self_sum}, "
                 f"not {total} (were frames left out?)")
    if expected is not None and total != int(expected):
        sys.exit(f"{path}: total {total}, expected {expected}")
    print(total)

main(*sys.argv[1:])
