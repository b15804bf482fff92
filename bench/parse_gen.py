#!/usr/bin/env python3
"""Writes large OpenLaszlo and lms logs for bench/parse.sh.
usage: parse_gen.py openlaszlo|lms FILE MEGABYTES"""
import sys

kind, path, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
limit = mb * 1000 * 1000
names = ["LzNode.prototype.applyArgs", "handle cal.oninit", "set width",
         "basecalendar.lzx#212/14", "LzView(cal)", "lzAddLocalData",
         "core/LzNode.as#17/12", "LzDelegate.execute"]
with open(path, "w") as f:
    size = 0
    if kind == "openlaszlo":
        # dumps as the profiler writes them: all C, then all R, then V
        t = 1000
        while size < limit:
            calls, rets, evs = [], [], []
            for i in range(2000):
                a, b = names[i % 8], names[(i * 3 + 1) % 8]
                calls.append("%d C %s\n%d C %s\n" % (t, a, t + 1, b))
                rets.append("%d R %s\n%d R %s\n" % (t + 2, b, t + 3, a))
                if i % 50 == 0:
                    evs.append("%d V done: %s\n" % (t + 3, a))
                t += 4
            chunk = "%d S \n" % t + "".join(calls) + "".join(rets) + \
                "".join(evs) + "%d E \n" % (t + 1)
            t += 2
            f.write(chunk)
            size += len(chunk)
    else:
        f.write("".join("2,%d,%s\n" % (i, n) for i, n in enumerate(names)))
        lines = []
        for i in range(4000):
            a, b = i % 8, (i * 3 + 1) % 8
            lines.append("0,%d,3\n0,%d,12\n1,%d,250\n1,%d,7\n" % (a, b, b, a))
        chunk = "".join(lines)
        while size < limit:
            f.write(chunk)
            size += len(chunk)
