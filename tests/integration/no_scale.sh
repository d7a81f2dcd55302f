#!/usr/bin/env bash
# --no-scale and the daemon: one daemon counts one way for all its
# clients (its hello says which), so a stat attaches only when it asks
# for the same. msr/tsc/ is read with its enabled and running times as a
# hardware event is, through the per-slice scaling code (never
# multiplexed: it keeps running == enabled, so both ways count alike).
#  - a scaling daemon: stat --no-scale with its --socket stops with the
#    reason, exit 2; found through $EMON_PERF_SOCKET it counts with own
#    events and says why
#  - serve --no-scale: stat --no-scale attaches; a stat without it does
#    not (own events, the reason said)
#  - own events, --no-scale against none: msr/tsc/ within 1%, no
#    percentage (it ran all the time), no NMI watchdog hint
. "$(dirname "$0")/lib.sh"
grep -q . /sys/bus/event_source/devices/msr/events/tsc 2>/dev/null ||
	skip "no msr PMU (msr/tsc/): no event read with its times here"

S=$TMP/run/emon.sock
EVS=cpu-clock,msr/tsc/

serve_start "$S" "$TMP/serve.err" -e "$EVS" --listen none --energy none || exit 1
"$EMON" stat -a -e "$EVS" --no-scale --socket "$S" --timeout 300 >"$TMP/o1" 2>&1
rc=$?
check "a scaling daemon, --socket: stat --no-scale exits 2" [ "$rc" -eq 2 ]
check "  saying why in one line" grep -q "no-scale needs a daemon started with it" "$TMP/o1"
EMON_PERF_SOCKET=$S "$EMON" stat -a -e "$EVS" --no-scale --timeout 300 >"$TMP/o2" 2>&1
check "found by itself: own events, exit 0" [ $? -eq 0 ]
check "  with the reason" grep -q "scales multiplexed counts (no --no-scale): counting with own events" "$TMP/o2"
kill "$DPID"
wait "$DPID" 2>/dev/null

serve_start "$S" "$TMP/serve2.err" -e "$EVS" --listen none --energy none --no-scale || exit 1
"$EMON" stat -a -e "$EVS" --no-scale --socket "$S" --timeout 300 >"$TMP/o3" 2>&1
check "serve --no-scale: stat --no-scale attaches" grep -q "attached to the daemon" "$TMP/o3"
EMON_PERF_SOCKET=$S "$EMON" stat -a -e "$EVS" --timeout 300 >"$TMP/o4" 2>&1
check "  a stat without it counts with own events" grep -q "counts raw (--no-scale): counting with own events" "$TMP/o4"
kill "$DPID"
wait "$DPID" 2>/dev/null

"$EMON" stat -a --no-daemon --energy none -e "$EVS" --json-rows -o "$TMP/raw.jsonl" --no-scale \
	--timeout 1000 & rpid=$!
"$EMON" stat -a --no-daemon --energy none -e "$EVS" -o "$TMP/scaled.txt" --timeout 1000 \
	2>"$TMP/scaled.err"
wait "$rpid"
raw=$(jrow "$TMP/raw.jsonl" system all msr/tsc/)
scaled=$(awk '/msr\/tsc\// { gsub(",", "", $1); print $1 }' "$TMP/scaled.txt")
check "own events: msr/tsc/ raw and scaled within 1% ($raw, $scaled)" near "$raw" "$scaled" 1
check "  ran all the time: no percentage" [ "$(grep -c '%)' "$TMP/scaled.txt")" = 0 ]
check "  no NMI watchdog hint" [ "$(grep -c 'NMI watchdog' "$TMP/scaled.err")" = 0 ]
finish
