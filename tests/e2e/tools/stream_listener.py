#!/usr/bin/env python3
"""A misbehaving listener for tests/e2e/stream_slow.sh.

stream_listener.py PORTFILE OUT MODE [ARG]
  stall GO      accept, read nothing until the file GO exists, then read
                everything into OUT
  close N       accept, read N bytes into OUT, close the connection
The chosen port is written to PORTFILE once listening.
"""
import os
import socket
import sys
import time

portfile, out, mode = sys.argv[1:4]
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
# Small buffers: the tracer meets a full socket soon.
srv.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
srv.listen(1)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
conn, _ = srv.accept()
with open(out, "wb") as f:
    if mode == "stall":
        while not os.path.exists(sys.argv[4]):
            time.sleep(0.05)
        while True:
            data = conn.recv(1 << 20)
            if not data:
                break
            f.write(data)
    elif mode == "close":
        left = int(sys.argv[4])
        while left > 0:
            data = conn.recv(min(left, 65536))
            if not data:
                break
            f.write(data)
            left -= len(data)
        conn.close()
