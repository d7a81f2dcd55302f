#!/usr/bin/env bash
# A client that distrusts its daemon: `stat --socket` against a fake daemon
# (fake_daemon.py) that answers honestly once and then lies, one way a
# mode. A socket path or $EMON_PERF_SOCKET can point anywhere, so the
# client bounds what its daemon can cost it (docs/security.md):
#  - good: the fake's own counts come through (the fake is understood,
#    so each refusal below is the lie's, not the fake's);
#  - a snapshot time of -1e18 from the first answer, NaN or an hour
#    ahead of this host's clock later: refused, stat ends within its
#    --timeout (-1e18 made it spin at 99% CPU, deaf to SIGTERM), exit 1,
#    one line saying it lost the daemon;
#  - a 1 GiB header, then a byte every 3 s: given up within the payload
#    time limit, with no more memory than the bytes that came;
#  - 1,000,000 entries of no events in a 32 MB answer: refused before
#    any of it is decoded (it took 1.75 GB);
#  - an error text and a hello's energy source holding terminal escapes
#    (ESC, and U+009B, the C1 CSI): no escape byte reaches the terminal.
. "$(dirname "$0")/lib.sh"

# run_stat NAME ARGS...: stat's status, seconds and peak RSS (KiB) on one line
run_stat() {
	local name=$1
	shift
	"$PY3" - "$TMP/$name" "$@" <<'PY'
import resource, subprocess, sys, time
out, argv = sys.argv[1], sys.argv[2:]
t = time.monotonic()
with open(out + ".out", "wb") as o, open(out + ".err", "wb") as e:
    try:
        rc = subprocess.run(argv, stdout=o, stderr=e, timeout=20).returncode
    except subprocess.TimeoutExpired:
        rc = 124
print(rc, "%.1f" % (time.monotonic() - t),
      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

# no_escape FILE...: no ESC byte (a terminal escape's first) in them
# no ESC, nor U+009B (C2 9B in UTF-8), a CSI to a terminal
no_escape() { ! grep -qs "$(printf '\033')" "$@" && ! grep -qs "$(printf '\302\233')" "$@"; }

# fake MODE: a fake daemon in MODE on $TMP/MODE.sock
fake() {
	"$PY3" "$(dirname "$0")/fake_daemon.py" "$TMP/$1.sock" "$1" 2>"$TMP/$1.fake.err" &
	BG_PIDS+=("$!")
	for _ in $(seq 100); do
		[ -S "$TMP/$1.sock" ] && return 0
		sleep 0.05
	done
	return 1
}

for mode in good nan_time past_time future_time trickle zero_events escape_error escape_hello escape_hello_c1; do
	fake "$mode" || { echo "FAIL: the fake daemon ($mode) did not start"; exit 1; }
	# past_time without --timeout: the loop that spun had no other end
	to=(--timeout 3000)
	[ "$mode" = past_time ] && to=()
	read -r rc secs rss < <(run_stat "$mode" "$EMON" stat --socket "$TMP/$mode.sock" -a \
		-e cpu-clock -I 200 "${to[@]}")
	echo "$mode: exit $rc in $secs s, peak RSS $rss KiB"
	eval "rc_$mode=$rc secs_$mode=$secs rss_$mode=$rss"
done

check "good: exit 0" [ "$rc_good" -eq 0 ]
check "  attached to the fake daemon" grep -q "attached to the daemon" "$TMP/good.err"
check "  the fake's cpu-clock, 2 CPUs x 100 ms a flush, as 200.00 msec an interval" \
	grep -q " 200.00 msec cpu-clock" "$TMP/good.err"
for mode in nan_time past_time future_time; do
	eval "rc=\$rc_$mode secs=\$secs_$mode"
	check "$mode: stat ends (exit 1, not killed at 20 s)" [ "$rc" -eq 1 ]
	check "  within its --timeout and a second" \
		"$PY3" -c "import sys; sys.exit(float('$secs') > 4.0)"
	what="lost the daemon"
	[ "$mode" = past_time ] && what="taking the first snapshot: Bad message"
	check "  saying '$what', in one line" [ "$(grep -c "$what" "$TMP/$mode.err")" -eq 1 ]
done
check "future_time: the time is named as not this host's clock" \
	grep -q "snapshot time .* is not this host's clock" "$TMP/future_time.err"
check "trickle: a payload trickled a byte every 3 s is given up (exit 1)" [ "$rc_trickle" -eq 1 ]
check "  within the payload's 10 s and --timeout's 3 s, with slack" \
	"$PY3" -c "import sys; sys.exit(float('$secs_trickle') > 20.0)"
check "  in at most 64 MiB (the header claimed 1 GiB)" [ "$rss_trickle" -lt 65536 ]
check "zero_events: 1,000,000 entries without events are refused (exit 1)" [ "$rc_zero_events" -eq 1 ]
check "  in at most 200 MiB (the answer is 32 MB; it took 1.75 GB)" [ "$rss_zero_events" -lt 204800 ]
check "escape_error: refused (exit 1)" [ "$rc_escape_error" -eq 1 ]
check "  its text shown" grep -q "no ?]0;pwned? way" "$TMP/escape_error.err"
check "  no escape byte on the terminal" no_escape "$TMP"/escape_error.*
check "escape_hello: a hello with an escape in its energy source is refused" \
	grep -q "no valid hello" "$TMP/escape_hello.err"
check "  no escape byte on the terminal" no_escape "$TMP"/escape_hello.*
check "escape_hello_c1: a hello with U+009B (a C1 CSI) in its energy source is refused" \
	grep -q "no valid hello" "$TMP/escape_hello_c1.err"
check "  no escape byte on the terminal" no_escape "$TMP"/escape_hello_c1.*
finish
