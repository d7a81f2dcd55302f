#!/usr/bin/env bash
# What an HTTP client can do to the daemon's /metrics endpoint: a malformed
# request line, an oversized header and URL, a GET that announces a huge
# body, a request that never ends (slow), 500 connections at once, clients
# that vanish before their answer. The daemon answers each with an error or
# closes it within its bounds (64 connections, 32 per address, 10 s of
# idleness, 64 KiB per connection), keeps serving correct numbers (a scrape
# of a burner's cgroup against its cpu.stat afterwards, 0.5% + steal + the
# daemon's untraced time over the burner's window) and its memory
# stays bounded; nothing it printed is a crash.
. "$(dirname "$0")/lib.sh"

MPORT=$(free_port)
S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" -e cpu-clock,context-switches \
	--listen 127.0.0.1:$MPORT --max-keys 1000 || exit 1
rss0=$(awk '$1 == "VmRSS:" { print $2 }' /proc/$DPID/status)
fds0=$(ls /proc/$DPID/fd | wc -l)

"$PY3" - "$MPORT" >"$TMP/client.out" 2>&1 <<'PY'
import socket, sys, time
port = int(sys.argv[1])
ok = True

def say(cond, what):
    global ok
    print(("ok    " if cond else "FAIL  ") + what)
    ok &= cond

def conn(timeout=15):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(timeout)
    return s

def answer(s):
    """What the server sent until it closed (or the timeout): bytes, seconds."""
    t0, out = time.time(), b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError):
        pass
    return out, time.time() - t0

def status(out):
    return out.split(b" ", 2)[1].decode() if out.startswith(b"HTTP/1.") else "closed"

def ask(data):
    s = conn()
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass    # closed while we sent: what an oversized request may get
    out, dt = answer(s)
    s.close()
    return status(out), dt

GET = b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
code, dt = ask(b"GARBAGE\r\n\r\n")
say(code in ("400", "closed"), f"malformed request line: {code} (400 or closed)")
code, dt = ask(GET + b"X-Big: " + b"a" * 200000 + b"\r\n\r\n")
say(code in ("431", "413", "closed"), f"a 200 kB header: {code} (431, 413 or closed)")
code, dt = ask(b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
say(code in ("414", "431", "closed"), f"a 100 kB URL: {code} (414, 431 or closed)")
code, dt = ask(GET + b"Content-Length: 100000000\r\n\r\n" + b"x" * 1000)
say(code == "413" and dt < 5, f"a GET announcing a 100 MB body: {code} in {dt:.2f} s (413 at once, its body never read)")
code, dt = ask(GET + b"Transfer-Encoding: chunked\r\n\r\n5\r\nxxxxx\r\n")
say(code == "413", f"a chunked GET: {code} (413)")
code, dt = ask(b"DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
say(code == "405", f"DELETE: {code} (405)")

# slow: half a request, then nothing: closed after 10 s of idleness at most
slow = conn(20)
slow.sendall(b"GET /metr")
t0 = time.time()

# clients that vanish before their answer
for _ in range(50):
    s = conn(); s.sendall(GET + b"\r\n"); s.close()

# 500 connections at once: at most 64 are held at a time (32 from one
# address), each new one taking the longest idle one's place; the daemon
# neither stalls nor grows (its fds, checked after)
many = []
for _ in range(500):
    try:
        many.append(conn(5))
    except OSError:
        pass
served = 0
for s in many:
    try:
        s.sendall(GET + b"Connection: close\r\n\r\n")
    except OSError:
        continue
for s in many:
    out, _ = answer(s)
    served += status(out) == "200"
    s.close()
# (a slot freed by an answered connection takes the next one waiting in
# the backlog, so more than 64 may be served in all, never 500)
say(0 < served < 500, f"500 connections at once: {served} served a scrape, the rest closed")

out, dt = answer(slow)
waited = time.time() - t0
# (the 500 below may push it out sooner: it is the longest idle one)
say(status(out) == "closed" and waited <= 14, f"a request not whole: closed after {waited:.1f} s (the 10 s idle limit, or sooner for a newer connection)")

code, dt = ask(GET + b"Connection: close\r\n\r\n")
say(code == "200", f"afterwards a scrape answers: {code}")
sys.exit(0 if ok else 1)
PY
rc=$?
cat "$TMP/client.out"
check "every client check held" [ $rc -eq 0 ]
check "the daemon is still running" [ -d /proc/$DPID ]
for _ in $(seq 100); do	# connections the clients closed last may take a moment
	fds=$(ls /proc/$DPID/fd | wc -l)
	[ "$fds" -le "$fds0" ] && break
	sleep 0.02
done
check "its fds back to what they were ($fds0 -> $fds)" [ "$fds" -le "$fds0" ]

# correct numbers afterwards: a burner's cgroup, scraped, against cpu.stat
cg=$(cg_new afterwards)
u0=$(cg_usage_ns "$cg") st0=$(steal_ns) unt0=$(metrics_untraced_ns $MPORT)
scrape() { # the cgroup's emon_cgroup_cpu_clock_seconds_total, in ns
	curl -s "http://127.0.0.1:$MPORT/metrics" | awk -v cg="$cg" '
	$1 == "emon_cgroup_cpu_clock_seconds_total{cgroup=\"" cg "\"}" { printf "%.0f\n", $2 * 1e9 }'
}
cg_run "$cg" "$BURN" 0.3
p1=$(scrape)
u1=$(cg_usage_ns "$cg")
unt=$(($(metrics_untraced_ns $MPORT) - unt0))
echo "      cgroup $cg: /metrics ${p1:-none} ns, cpu.stat $((u1 - u0)) ns"
check "a scrape afterwards: the burner's cgroup matches cpu.stat within 0.5% (+ steal + untraced)" \
	near_steal "${p1:-0}" "$((u1 - u0))" 0.5 "$(($(steal_ns) - st0 + unt))"

# bounded: each connection served holds its own answer until it is sent,
# at most 64 at once; freed memory stays in the daemon's heap, so what RSS
# may grow by is 16 MiB + 64 answers of this machine's size
size=$(curl -s "http://127.0.0.1:$MPORT/metrics" | wc -c)
rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/$DPID/status)
allowed=$((16384 + 64 * size / 1024))
echo "      daemon RSS: $rss0 kB before, $rss kB after; an answer is $size bytes"
check "memory bounded: RSS grew by less than 16 MiB + 64 answers ($allowed kB)" [ $((rss - rss0)) -lt $allowed ]
kill -TERM $DPID
wait $DPID
check "then a clean exit on SIGTERM" [ $? -eq 0 ]
check "nothing alarming in its log" bash -c "! grep -qiE 'sanitizer|segv|abort' '$TMP/serve.err'"
finish
