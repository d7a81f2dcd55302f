# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A daemon that lies (client_distrust.sh): it speaks the socket protocol
(include/emon_proto.h, docs/protocol.md) to emon-perf's client, honestly
in mode "good", and in the other modes with one hostile answer each.
    fake_daemon.py SOCKET MODE
Modes: good, nan_time, past_time, future_time, trickle, zero_events,
escape_error, escape_hello, escape_hello_c1. Serves until killed."""
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emon_client import HDR, MAGIC, V  # noqa: E402

HELLO, SNAP_REQ, SNAP, TRACK_REQ, TRACK, ERROR = 1, 2, 3, 4, 5, 6
NCPUS, NPKG, NAME_LEN, MAX_EVENTS, FIXED = 2, 1, 64, 16, 6
EV_SUPPORTED, EV_TIME = 1, 2
PROCS = 2
path, mode = sys.argv[1], sys.argv[2]


def msg(typ, body, tag=0):
    return HDR.pack(MAGIC, V, typ, len(body), tag) + body


def hello():
    source = {"escape_hello": b"\x1b[31mEVIL\x1b[0m",
              "escape_hello_c1": b"\xc2\x9b31mEVIL"}.get(mode, b"")
    h = struct.pack("<IIIIIId", os.getpid(), NCPUS, NPKG, 1, 0, 64,
                    time.clock_gettime(time.CLOCK_MONOTONIC))
    h += source.ljust(16, b"\0") + b"".ljust(NAME_LEN, b"\0")
    ev = b"cpu-clock".ljust(NAME_LEN, b"\0") + struct.pack("<Ii", EV_SUPPORTED | EV_TIME, 0)
    h += ev + b"\0" * (72 * (MAX_EVENTS - 1))
    return h + struct.pack("<iii", 0, 0, 0)	# cpu_pkg[2], pkg_id[1]


def count(ns):
    return struct.pack("<QQQQ", ns, ns, ns, 0)


def snapshot(seq, t, nproc=1, nr_events=1):
    """seq's snapshot: the CPUs' and one process's cpu-clock grow 100 ms a flush."""
    ns = seq * 100000000
    blk = count(ns) if nr_events else b""
    strings = b"fake\0"
    h = struct.pack("<Qd", seq, t)
    h += struct.pack("<IIIIIIII", NCPUS, NPKG, nr_events, PROCS, 0, nproc, 0, len(strings))
    h += struct.pack("<Q", 0) + b"\0" * 64 + bytes([0] * MAX_EVENTS)
    h += struct.pack("<IIII", 0, 0, 0, 0)	# nr_cont, nr_thrd, nr_gpu, pad
    body = h
    for _ in range(NCPUS):
        body += struct.pack("<IId", 1, 0, 0.0) + blk
    body += struct.pack("<d4dII", 0.0, 0, 0, 0, 0, 0, 0)
    zero = count(0) if nr_events else b""
    for _ in range(FIXED):
        body += struct.pack("<QQIId", 0, 0, 0xffffffff, 0, 0.0) + zero
    entry = struct.pack("<QQIId", 4242, 1, 0, 0, 0.0) + blk
    body += entry * nproc
    return body + strings


def serve(c):
    seq = 0
    c.sendall(msg(HELLO, hello()))
    while True:
        h = b""
        while len(h) < HDR.size:
            b = c.recv(HDR.size - len(h))
            if not b:
                return
            h += b
        _, _, typ, ln, tag = HDR.unpack(h)
        while ln:
            ln -= len(c.recv(ln))
        seq += 1
        now = time.clock_gettime(time.CLOCK_MONOTONIC)
        if typ == TRACK_REQ:
            c.sendall(msg(TRACK, struct.pack("<iI", 0, 0), tag))
        elif mode == "escape_error":
            c.sendall(msg(ERROR, struct.pack("<i", 5) + b"no \x1b]0;pwned\x07 way \xc2\x9b2J\0", tag))
        elif mode == "past_time" or (mode in ("nan_time", "future_time") and seq > 1):
            t = {"nan_time": float("nan"), "past_time": -1e18,
                 "future_time": now + 3600}[mode]
            c.sendall(msg(SNAP, snapshot(seq, t), tag))
        elif mode == "trickle" and seq > 1:
            c.sendall(HDR.pack(MAGIC, V, SNAP, 1 << 30, tag))
            while True:
                c.sendall(b"\0")
                time.sleep(3)
        elif mode == "zero_events" and seq > 1:
            c.sendall(msg(SNAP, snapshot(seq, now, nproc=1000000, nr_events=0), tag))
        else:
            c.sendall(msg(SNAP, snapshot(seq, now), tag))


def guarded(c):
    try:
        serve(c)
    except OSError:
        pass	# the client went: what it does then is the test's
    c.close()


def main():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(8)
    while True:
        c, _ = s.accept()
        threading.Thread(target=guarded, args=(c,), daemon=True).start()


main()
