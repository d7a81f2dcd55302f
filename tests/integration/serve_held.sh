#!/usr/bin/env bash
# The memory that answers clients have not read can hold (--max-held-mb):
# an answer the client's socket cannot take whole stays in the daemon
# until it is read. Clients that ask and never read, each at another
# flush (so no two share an answer), fill the bound; a request after them
# waits, and is answered once they are gone. The daemon's RSS meanwhile
# grows by less than the bound + two answers + 8 MiB, where unbounded it
# would hold every one of those answers.
#  - a process storm first, so that an answer of every process (kept 300
#    s after it exits) is larger than a socket takes at once
. "$(dirname "$0")/lib.sh"

S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" -e cpu-clock --listen none --max-held-mb "${HELD_MB:-1}" || exit 1
"$TOOLS/forker" -d 2 -r 8000 -o "$TMP/forker.out" || { echo "FAIL: forker"; exit 1; }
echo "      $(cat "$TMP/forker.out")"
rss0=$(awk '$1 == "VmRSS:" { print $2 }' /proc/$DPID/status)

PYTHONPATH=$(dirname "$0") "$PY3" - "$S" "$DPID" >"$TMP/client.out" 2>&1 <<'PY'
import select, socket, sys, time
import emon_client
from emon_client import PROCS, recv_msg, say
path, dpid = sys.argv[1], sys.argv[2]

def rss_kb():
    for l in open(f"/proc/{dpid}/status"):
        if l.startswith("VmRSS:"):
            return int(l.split()[1])

def conn():
    s = emon_client.conn(path)
    recv_msg(s)	# the hello
    return s

def ask(s, tag):
    emon_client.snap_req(s, tag, scopes=PROCS)

s = conn()
ask(s, 1)
m = recv_msg(s)
size = len(m[2])
sndbuf = s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
print(f"      an answer of every process: {size} bytes; a socket takes about {sndbuf}")
say(size > sndbuf + (64 << 10), "an answer is larger than what a socket takes at once")
s.close()

# hogs: each asks at another flush (min-flush 10 ms) and never reads; the
# part of its answer that its socket cannot take stays held: enough of
# them to hold 12 MiB, past the RSS check's limit
n = min(200, (12 << 20) // max(1, size - sndbuf) + 4)
hogs = []
for i in range(n):
    h = conn()
    ask(h, 100 + i)
    hogs.append(h)
    time.sleep(0.03)
time.sleep(0.3)
grew = rss_kb()
# a reader now: its request waits while the hogs hold their answers
p = conn()
ask(p, 7)
waited = not select.select([p], [], [], 1.0)[0]
say(waited, f"a request after {n} unread answers waits (1 MiB held at most)")
for h in hogs:
    h.close()
t0 = time.time()
m = recv_msg(p)
say(m is not None and m[0] == 3 and m[1] == 7,
    f"and is answered once those clients are gone ({time.time() - t0:.2f} s)")
print(f"GREW {grew}")
print(f"SIZE {size}")
print(f"HOGS {n}")
sys.exit(1 if emon_client.failed else 0)
PY
rc=$?
grep -v '^GREW\|^SIZE\|^HOGS' "$TMP/client.out"
check "every client check held" [ $rc -eq 0 ]
rss=$(awk '$1 == "GREW" { print $2 }' "$TMP/client.out")
size=$(awk '$1 == "SIZE" { print $2 }' "$TMP/client.out")
if [ -n "$rss" ] && [ -n "$size" ]; then
	lim=$((1024 + 2 * size / 1024 + 8192))
	echo "      daemon RSS: $rss0 kB before, $rss kB with $(awk '$1 == "HOGS" { print $2 }' "$TMP/client.out") unread answers of $((size / 1024)) kB (limit +$lim kB)"
	check "memory bounded: RSS grew by less than 1 MiB + two answers + 8 MiB" [ $((rss - rss0)) -lt $lim ]
fi
check "the daemon is still running" [ -d /proc/$DPID ]
kill -TERM $DPID
wait $DPID
check "then a clean exit on SIGTERM" [ $? -eq 0 ]
finish
