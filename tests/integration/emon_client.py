# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The daemon's socket protocol (docs/protocol.md), for the tests' own
clients: what a well-behaved client sends and reads, and a check printer.
Imported by the python parts of serve_bad_input.sh and serve_held.sh
(PYTHONPATH: this directory)."""
import socket
import struct

MAGIC, V = 0x4e4f4d45, 3	# EMON_PROTO_MAGIC, EMON_PROTO_VERSION
HDR = struct.Struct("<IHHII")	# struct emon_msg_hdr
SNAPSHOT_REQ = 2
CGROUPS, PROCS = 1, 2		# EMON_SNAP_CGROUPS, EMON_SNAP_PROCS

failed = False


def say(cond, what):
    """One check's line, as lib.sh's check prints it."""
    global failed
    print(("ok    " if cond else "FAIL  ") + what)
    failed |= not cond


def conn(path, timeout=10):
    """A connection; its hello is left unread."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)	# blocking: waits while the backlog is full
    s.settimeout(timeout)
    return s


def recv_msg(s):
    """(type, tag, body) of the next message, None when the daemon closed."""
    h = b""
    while len(h) < HDR.size:
        b = s.recv(HDR.size - len(h))
        if not b:
            return None
        h += b
    _, _, typ, ln, tag = HDR.unpack(h)
    body = b""
    while len(body) < ln:
        b = s.recv(min(1 << 20, ln - len(body)))
        if not b:
            return None
        body += b
    return typ, tag, body


def snap_req(s, tag=1, scopes=CGROUPS | PROCS):
    """A snapshot request (struct emon_snap_req: scopes, events, tree, flags)."""
    s.sendall(HDR.pack(MAGIC, V, SNAPSHOT_REQ, 16, tag) +
              struct.pack("<IIiI", scopes, 0, -1, 0))
