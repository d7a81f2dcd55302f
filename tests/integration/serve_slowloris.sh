#!/usr/bin/env bash
# /metrics under a slowloris (docs/security.md): connections that send a
# header line a second and never end their request, reconnecting when
# closed, as an attacker's would:
#  - 40 from 127.0.0.1, the scraper's own address (past the 32 a source
#    may hold; they locked root's scrapes out for 40 s);
#  - 100 from 127.0.0.2-4 (past the 64 in all; scrapes timed out for 30 s).
# While each is held, 5 scrapes from 127.0.0.1, a second apart, must each
# get 200 with metrics within 3 s: a new connection takes the place of
# the longest idle one.
# counter pass: what it checks (HTTP connections) has no counts
. "$(dirname "$0")/lib.sh"

PORT=$(free_port)
S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" -e cpu-clock --energy none --listen "127.0.0.1:$PORT" || exit 1

# slowloris N SOURCES...: N connections spread over the source addresses,
# each sending a header line a second, reconnecting when closed; runs
# until killed, printing how many it holds open every second
slowloris() {
	"$PY3" - "$PORT" "$@" <<'PY' &
import socket, sys, time
port, n, srcs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
conns = [None] * n
def open_one(i):
    s = socket.socket()
    s.bind((srcs[i % len(srcs)], 0))
    s.settimeout(1)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        return s
    except OSError:
        s.close()
        return None
line = 0
while True:
    line += 1
    for i in range(n):
        s = conns[i]
        if s is not None:
            try:
                s.sendall(b"X-Slow-%d: %d\r\n" % (i, line))
            except OSError:
                s.close()
                s = None
        conns[i] = s or open_one(i)
    print(sum(c is not None for c in conns), flush=True)
    time.sleep(1)
PY
	LPID=$!
	BG_PIDS+=("$LPID")
}

# scrapes WHAT: 5 scrapes, a second apart; each must be 200 with metrics in 3 s
scrapes() {
	local ok=0 codes=""
	for i in 1 2 3 4 5; do
		c=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 3 "http://127.0.0.1:$PORT/metrics")
		grep -q '^emon_flushes_total ' "$TMP/body" 2>/dev/null && [ "$c" = 200 ] && ok=$((ok + 1))
		codes="$codes $c"
		rm -f "$TMP/body"
		sleep 1
	done
	check "$1: 5 of 5 scrapes 200 with metrics within 3 s each (codes:$codes)" [ "$ok" -eq 5 ]
}

slowloris 40 127.0.0.1 >"$TMP/l1.out"
sleep 3
scrapes "40 slow connections from 127.0.0.1 (the scraper's address)"
kill "$LPID"
wait "$LPID" 2>/dev/null
echo "held: $(tail -1 "$TMP/l1.out") of 40"

slowloris 100 127.0.0.2 127.0.0.3 127.0.0.4 >"$TMP/l2.out"
sleep 3
scrapes "100 slow connections from 127.0.0.2-4"
kill "$LPID"
wait "$LPID" 2>/dev/null
echo "held: $(tail -1 "$TMP/l2.out") of 100"
finish
