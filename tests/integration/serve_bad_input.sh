#!/usr/bin/env bash
# What a client can do to the daemon's socket: malformed, truncated,
# oversized and slow requests, 500 clients at once, clients that vanish
# before their answer, a track request for someone else's process. The
# daemon answers each with an error or closes it, keeps serving correct
# numbers (an attached stat against cpu.stat afterwards) and its memory
# stays bounded (--max-keys bounds what the machine's own processes and
# cgroups take); nothing it printed is a crash.
. "$(dirname "$0")/lib.sh"

S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" -e cpu-clock,context-switches --listen none \
	--max-clients 600 --max-keys 1000 --max-procs 2048 --max-cgroups 512 || exit 1
# the daemon's own memory (RssAnon): its mapped BPF arrays (RssFile,
# RssShmem) are the kernel's, sized at load, and fill in as the host's
# processes come and go, whatever the clients do (a storm of them
# elsewhere once moved VmRSS by 40 MB); its read buffers follow the
# host's processes too, up to --max-procs and --max-cgroups, kept small
rss0=$(awk '$1 == "RssAnon:" { print $2 }' /proc/$DPID/status)

PYTHONPATH=$(dirname "$0") "$PY3" - "$S" >"$TMP/client.out" 2>&1 <<'PY'
import os, socket, struct, sys, time
import emon_client
from emon_client import HDR, MAGIC, V, recv_msg, say, snap_req
path = sys.argv[1]

def conn():
    return emon_client.conn(path)

def closed(s):
    try:
        return s.recv(1) == b""
    except (ConnectionResetError, socket.timeout):
        return True

# the hello, then a good snapshot
s = conn()
typ, _, hello = recv_msg(s)
say(typ == 1, "hello on connect")
snap_req(s, 7)
typ, tag, body = recv_msg(s)
say(typ == 3 and tag == 7, "a snapshot answers a request, with its tag")

# malformed: bad magic -> error and closed
s = conn(); recv_msg(s)
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
m = recv_msg(s)
say(m is not None and m[0] == 6 and b"protocol" in m[2], "bad magic: an error naming the protocol")
say(closed(s), "bad magic: then closed")

# oversized
s = conn(); recv_msg(s)
s.sendall(HDR.pack(MAGIC, V, 2, 1 << 20, 1))
m = recv_msg(s)
say(m is not None and m[0] == 6 and struct.unpack("<i", m[2][:4])[0] == 90, "oversized: EMSGSIZE")
say(closed(s), "oversized: then closed")

# unknown type, wrong size, unknown scopes
for what, msg in (("unknown type", HDR.pack(MAGIC, V, 99, 0, 1)),
                  ("wrong size", HDR.pack(MAGIC, V, 2, 3, 1) + b"abc"),
                  ("unknown scopes", HDR.pack(MAGIC, V, 2, 16, 1) + struct.pack("<IIiI", 1 << 9, 0, -1, 0))):
    s = conn(); recv_msg(s)
    s.sendall(msg)
    m = recv_msg(s)
    say(m is not None and m[0] == 6, what + ": an error")
    say(closed(s), what + ": then closed")

# track someone else's process
s = conn(); recv_msg(s)
s.sendall(HDR.pack(MAGIC, V, 4, 8, 3) + struct.pack("<II", 1, 0))
m = recv_msg(s)
say(m is not None and m[0] == 6 and struct.unpack("<i", m[2][:4])[0] == 1, "tracking pid 1 (not our child): EPERM")

# a thread slot from a daemon that keeps none (no --threads): said, not closed
s = conn(); recv_msg(s)
s.sendall(HDR.pack(MAGIC, V, 7, 8, 4) + struct.pack("<II", os.getpid(), 0))
m = recv_msg(s)
say(m is not None and m[0] == 6 and struct.unpack("<i", m[2][:4])[0] == 95,
    "a thread slot without --threads: EOPNOTSUPP")
snap_req(s, 5, scopes=0)
m = recv_msg(s)
say(m is not None and m[0] == 3, "and the connection still answers")

# an older protocol version: refused, closed
s = conn(); recv_msg(s)
s.sendall(HDR.pack(MAGIC, 1, 2, 16, 1) + struct.pack("<IIiI", 0, 0, -1, 0))
m = recv_msg(s)
say(m is not None and m[0] == 6 and struct.unpack("<i", m[2][:4])[0] == 71, "protocol version 1: EPROTO")

# truncated: half a header, then gone; and slow: half a header, then wait
s = conn(); recv_msg(s)
s.sendall(HDR.pack(MAGIC, V, 2, 16, 1)[:7]); s.close()
slow = conn(); recv_msg(slow)
slow.sendall(HDR.pack(MAGIC, V, 2, 16, 1)[:7])

# clients that vanish before their answer
for _ in range(50):
    s = conn(); recv_msg(s); snap_req(s); s.close()

# 500 clients at once, each with a request in flight
t0 = time.time()
many = [conn() for _ in range(500)]
for c in many:
    recv_msg(c)
for i, c in enumerate(many):
    snap_req(c, i + 1, scopes=1)
good = 0
for i, c in enumerate(many):
    m = recv_msg(c)
    good += m is not None and m[0] == 3 and m[1] == i + 1
say(good == 500, f"500 clients at once: {good} answered in {time.time() - t0:.2f} s")
seqs = set()
for c in many:
    snap_req(c, 1, scopes=0)
for c in many:
    m = recv_msg(c)
    seqs.add(struct.unpack("<Q", m[2][:8])[0])
    c.close()
say(len(seqs) < 100, f"their requests shared flushes: {len(seqs)} flushes for 500")

# the slow one is closed after the request timeout (5 s)
time.sleep(5.5)
say(closed(slow), "a request not whole within 5 s: closed")
sys.exit(1 if emon_client.failed else 0)
PY
rc=$?
cat "$TMP/client.out"
check "every client check held" [ $rc -eq 0 ]
check "the daemon is still running" [ -d /proc/$DPID ]

# correct numbers afterwards
attached_burn "$S" $DPID "afterwards"
rss=$(awk '$1 == "RssAnon:" { print $2 }' /proc/$DPID/status)
echo "      daemon RssAnon: $rss0 kB before, $rss kB after ($(grep -E '^(VmRSS|RssFile|RssShmem):' /proc/$DPID/status | xargs))"
check "memory bounded: its own memory (RssAnon) grew by less than 16 MiB" [ $((rss - rss0)) -lt 16384 ]
kill -TERM $DPID
wait $DPID
check "then a clean exit on SIGTERM" [ $? -eq 0 ]
check "nothing alarming in its log" bash -c "! grep -qiE 'sanitizer|segv|abort' '$TMP/serve.err'"
finish
