#!/usr/bin/env bash
# emon-perf serve and stat attached to it. Truth from the kernel for the
# same window: cgroup cpu.stat, the command tree's rusage.
#  - the socket: directory 0750, socket 0660
#  - two attached stats (-I 100 and -I 1000, -G over the same cgroups) at
#    once: the daemon holds ncpu x (events that need a counter) perf_events
#    (cpu-clock and context-switches come from the switch itself), each stat none and
#    no BPF object, one sched_switch program is loaded; each stat's totals
#    match cpu.stat within 0.5% (+ steal + untraced time)
#  - command mode attached: the tree's cpu-clock matches its rusage; so
#    do both trees of an attached stat run inside a command that another
#    attached stat follows (the inner tree is in the outer one)
#  - a stat asking for an event the daemon does not count uses its own
#  - the daemon dies under an attached stat: it prints, says why, exits 1
#  - SIGKILL leaves a socket behind: the next daemon replaces it and counts;
#    SIGTERM leaves no socket and no BPF program or link
. "$(dirname "$0")/lib.sh"

D=$TMP/run
S=$D/emon.sock
ncpu=$(nproc)
# perf_events the daemon holds: major-faults on every CPU; all three events
# in the counter pass
nfds=$((ncpu * $(per_mode 1 3)))

start_daemon() { # ARGS...: the daemon on $S, $DPID (lib.sh serve_start)
	serve_start "$S" "$TMP/serve.err" -v -e cpu-clock,context-switches,major-faults --listen none "$@"
}

start_daemon || exit 1
check "socket directory is 0750" [ "$(stat -c %a "$D")" = 750 ]
check "socket is 0660" [ "$(stat -c %a "$S")" = 660 ]
check "the daemon holds ncpu x the events with a counter = $nfds perf_events" [ "$(perf_fds $DPID)" -eq "$nfds" ]

# --- two attached stats at once, against cpu.stat ---
a=$(cg_new a) b=$(cg_new b)
ua0=$(cg_usage_ns "$a") ub0=$(cg_usage_ns "$b") st0=$(steal_ns)
wait_done="while [ ! -e $TMP/done ]; do sleep 0.02; done"
for i in 1 2; do
	ival=$([ $i = 1 ] && echo 100 || echo 1000)
	"$EMON" stat -e cpu-clock,context-switches -G "$a,$b" -I $ival --json-rows \
		-o "$TMP/s$i.jsonl" --socket "$S" -- sh -c "$wait_done" 2>"$TMP/s$i.err" &
	eval "spid$i=\$!"
done
for _ in $(seq 200); do	# both attached (said on stderr)
	grep -q attached "$TMP/s1.err" && grep -q attached "$TMP/s2.err" && break
	sleep 0.05
done
check "stat 1 says it attached, with the daemon's pid" grep -q "attached to the daemon (pid $DPID" "$TMP/s1.err"
cg_burners 0.6 "$a" "$b" "$b"
sleep 0.2
# one set of programs for all of them: the daemon's (other emon-perf
# runs on the machine may hold theirs; these stats hold none, below)
progs=$(for id in $(bpf_ids $DPID | awk '$1 == "prog" { print $2 }'); do
	bpftool prog show id "$id" 2>/dev/null; done | grep -c ' name on_switch ')
echo "      on_switch programs on the machine: $(bpftool prog show 2>/dev/null | grep -c ' name on_switch ')"
check "one sched_switch program, the daemon's, for all of them ($progs)" [ "$progs" -eq 1 ]
check "the daemon still holds $nfds perf_events" [ "$(perf_fds $DPID)" -eq "$nfds" ]
for i in 1 2; do
	eval "p=\$spid$i"
	check "stat $i holds no perf_event" [ "$(perf_fds $p)" -eq 0 ]
	check "stat $i holds no BPF program, map or link" [ "$(bpf_fds $p)" -eq 0 ]
done
wait "${BURNERS[@]}"
ua=$(($(cg_usage_ns "$a") - ua0)) ub=$(($(cg_usage_ns "$b") - ub0))
touch "$TMP/done"
wait $spid1
rc1=$?
wait $spid2
rc2=$?
steal=$(($(steal_ns) - st0))
check "both stats exit 0 ($rc1, $rc2)" [ $rc1 -eq 0 -a $rc2 -eq 0 ]
for i in 1 2; do
	unt=$(untraced_ns "$TMP/s$i.jsonl")
	ea=$(jsum_counter "$TMP/s$i.jsonl" cgroup "$a" cpu-clock)
	eb=$(jsum_counter "$TMP/s$i.jsonl" cgroup "$b" cpu-clock)
	echo "      stat $i: a $ea b $eb; cpu.stat a $ua b $ub (ns); steal $((steal / 1000)) us, untraced $((unt / 1000)) us"
	check "stat $i: cgroup a matches cpu.stat within 0.5% (+ steal + untraced)" near_steal "$ea" "$ua" 0.5 $((steal + unt))
	check "stat $i: cgroup b matches cpu.stat within 0.5% (+ steal + untraced)" near_steal "$eb" "$ub" 0.5 $((steal + unt))
done
n1=$(grep -c '"scope":"system"' "$TMP/s1.jsonl")
check "stat -I 100 printed more intervals ($n1) than -I 1000" [ "$n1" -gt "$(grep -c '"scope":"system"' "$TMP/s2.jsonl")" ]

# --- command mode attached: the tree against its own rusage ---
st0=$(steal_ns)
"$EMON" stat -e cpu-clock,context-switches --by system,cpu,process --json-rows -o "$TMP/cmd.jsonl" --socket "$S" -- \
	"${RUSAGE_RUN[@]}" "$TMP/rusage" sh -c "$BURN 0.3 & $BURN 0.3; wait" \
	2>"$TMP/cmd.err"
rc=$?
steal=$(($(steal_ns) - st0))
check "attached command mode exits 0" [ $rc -eq 0 ]
check "and says it attached" grep -q "attached to the daemon" "$TMP/cmd.err"
e=$(jcommand "$TMP/cmd.jsonl" cpu-clock)
ru=$(cat "$TMP/rusage")
unt=$(untraced_ns "$TMP/cmd.jsonl")
if ! check "the command tree's cpu-clock matches its rusage within 3% (+ steal + untraced)" \
	near_steal "$e" "$ru" 3 $((steal + unt)); then
	echo "      its rows:"; sed 's/^/      /' "$TMP/cmd.jsonl"
	echo "      the daemon's log:"; sed 's/^/      /' "$TMP/serve.err"
	sed 's/^/      stderr: /' "$TMP/cmd.err"
fi

# --- a stat attached inside a command that another attached stat follows ---
# The daemon follows both trees; the inner command stays in the outer one
# (its root keeps the outer tree's bit when the inner stat has it followed)
inner=$(printf '%q ' "$EMON" stat -e cpu-clock --json-rows -o "$TMP/inner.jsonl" --socket "$S" -- \
	"${RUSAGE_RUN[@]}" "$TMP/rusage_in" "$BURN" 0.3)
st0=$(steal_ns)
"$EMON" stat -e cpu-clock --by system,cpu,process --json-rows -o "$TMP/outer.jsonl" --socket "$S" -- \
	"${RUSAGE_RUN[@]}" "$TMP/rusage" bash -c "$inner 2>$TMP/inner.err; $BURN 0.2" 2>"$TMP/outer.err"
rc=$?
steal=$(($(steal_ns) - st0))
check "nested attached commands: exit 0" [ $rc -eq 0 ]
for w in inner outer; do
	ru=$(cat "$TMP/rusage$([ $w = inner ] && echo _in)")
	e=$(jcommand "$TMP/$w.jsonl" cpu-clock)
	unt=$(untraced_ns "$TMP/$w.jsonl")
	echo "      $w command cpu-clock $e ns, its tree's rusage $ru ns; steal $((steal / 1000)) us, untraced $((unt / 1000)) us"
	if ! check "nested attached commands: the $w tree's cpu-clock matches its rusage within 3% (+ steal + untraced)" \
		near_steal "$e" "$ru" 3 $((steal + unt)); then
		tree_rows "$TMP/$w.jsonl"
		sed 's/^/      stderr: /' "$TMP/$w.err"
	fi
done

# --- a command that leaves a process running, then the next command ---
# The first tree's id is free again when its stat leaves, and its burner
# runs on: the next command must not count it (its rusage: a sleep's).
"$EMON" stat -e cpu-clock -o /dev/null --socket "$S" -- sh -c "exec $BURN 1 >/dev/null &" \
	2>"$TMP/left.err"
check "a command that leaves a burner running: exit 0" [ $? -eq 0 ]
st0=$(steal_ns)
"$EMON" stat -e cpu-clock --json-rows -o "$TMP/next.jsonl" --socket "$S" -- \
	"${RUSAGE_RUN[@]}" "$TMP/rusage" sleep 0.5 2>"$TMP/next.err"
check "the next command: exit 0" [ $? -eq 0 ]
steal=$(($(steal_ns) - st0))
e=$(jcommand "$TMP/next.jsonl" cpu-clock)
check "the next command's tree holds its own time only, not the burner's (3% + 20 ms + steal + untraced)" \
	near_steal "$e" "$(cat "$TMP/rusage")" 3 $((20000000 + steal + $(untraced_ns "$TMP/next.jsonl")))
pkill -f "$BURN 1\$" 2>/dev/null

# --- an event the daemon does not count: own events, one line ---
"$EMON" stat -e page-faults --socket "$S" --timeout 200 -o /dev/null 2>"$TMP/own.err"
check "an event the daemon lacks: exit 0" [ $? -eq 0 ]
check "and a one-line notice" [ "$(grep -c 'counting with own events' "$TMP/own.err")" -eq 1 ]

# --- the daemon dies under an attached stat ---
"$EMON" stat -e cpu-clock -I 200 --json-rows -o "$TMP/dies.jsonl" --socket "$S" 2>"$TMP/dies.err" &
sp=$!
n0=0
for _ in $(seq 600); do	# until it has printed 3 intervals, however slow
	n0=$(grep -c '"scope":"system"' "$TMP/dies.jsonl" 2>/dev/null)
	[ "${n0:-0}" -ge 3 ] && break
	sleep 0.05
done
kill -KILL $DPID
wait $DPID 2>/dev/null
wait $sp
rc=$?
check "stat exits 1 when the daemon dies" [ $rc -eq 1 ]
check "it says why" grep -q "lost the daemon (pid $DPID" "$TMP/dies.err"
n=$(grep -c '"scope":"system"' "$TMP/dies.jsonl")
check "and printed what it had: $n intervals, the $n0 printed before the kill among them" \
	[ "$n" -ge 3 -a "$n" -ge "${n0:-0}" ]
check "SIGKILL left the socket behind" [ -S "$S" ]

# --- the next daemon replaces the stale socket and counts ---
start_daemon || exit 1
attached_burn "$S" $DPID "after a SIGKILL the next daemon"

# --- SIGTERM: a clean exit ---
ids=$(bpf_ids $DPID)
kill -TERM $DPID
wait $DPID
check "SIGTERM: exit 0" [ $? -eq 0 ]
check "SIGTERM: no socket left" [ ! -e "$S" ]
check "SIGTERM: its BPF programs and links are gone" bpf_gone "$ids"
finish
