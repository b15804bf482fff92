#!/usr/bin/env python3
"""Writes the evlog edge-case files next to this script (they are committed;
run again after changing it).  See tests/unit/test_read_evlog.c for what each
file must read as."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def item(e, tim, thread, name, detail=None, junk=b"\0"):
    body = name.encode() + b"\0"
    det_off = 0
    if detail is not None:
        det_off = 40 + len(body)
        body += detail.encode() + b"\0"
    size = (40 + len(body) + 7) // 8 * 8
    pad = (junk * size)[: size - 40 - len(body)]
    head = struct.pack(e + "ddQQHHH", tim, 0.0, thread, 0xdead, 40, det_off,
                       size) + junk[:1] * 2
    return head + body + pad


def block(e, items, overflow=0, size=None):
    data = b"".join(items)
    return struct.pack(e + "III", 0x0FFEE211,
                       len(data) if size is None else size, overflow) + data


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


BE = ">"
write("evlog_be_cross.log",
      block(BE, [item(BE, 1.0, 1, "+outer", junk=b"\xa5"),
                 item(BE, 1.5, 1, "+inner", junk=b"\x5a"),
                 item(BE, 2.0, 1, ">A"),
                 item(BE, 2.5, 2, ">B")]) +
      block(BE, [item(BE, 3.0, 1, "-inner"),
                 item(BE, 3.5, 2, "<A"),
                 item(BE, 4.0, 1, "<B"),
                 item(BE, 4.5, 1, "-outer"),
                 item(BE, 5.0, 2, "-lost"),
                 item(BE, 5.5, 2, "!hello", "world")], overflow=3))

LE = "<"
second = [item(LE, 3.0, 7, "+g"), item(LE, 4.0, 7, "-g")]
write("evlog_truncated.log",
      block(LE, [item(LE, 1.0, 7, "+f"), item(LE, 2.0, 7, "-f")]) +
      block(LE, second)[: 12 + len(second[0]) + 20])
