#!/usr/bin/env bash
# Command mode under process churn: the command row counts the command's
# whole tree, all of it and nothing else.
#  - a storm of short processes (tools/forker) as the command: the command
#    row matches the CPU time the kernel gave the tree (forker's getrusage
#    of all its reaped descendants) within 5% plus steal and the time
#    whose owner emon-perf estimated (lib.sh untraced_ns: the system
#    row's, which --by system prints beside the command's);
#  - more processes than --max-procs (400 processes of 2 ms, one after the
#    other, with room for 64): the command row still has all their work
#    (stderr's warning speaks of an overflow process row, which command
#    mode does not print);
#  - a pid the tree once had, given to an unrelated process after the
#    tree's process exited (pids are reused; pid_max is often 32768): that
#    process is not counted as the command's.
. "$(dirname "$0")/lib.sh"

# forker: "procs=N ... children_cpu_s=C self_cpu_s=S": C + S in ns
tree_cpu_ns() {
	sed -n 's/.*children_cpu_s=\([0-9.]*\) self_cpu_s=\([0-9.]*\).*/\1 \2/p' "$1" |
		awk '{ printf "%.0f\n", ($1 + $2) * 1e9 }'
}

# a storm as the command
st0=$(steal_ns)
"$EMON" stat --energy none -e cpu-clock,context-switches --by system --json-rows -o "$TMP/storm.jsonl" -- \
	"$FORKER" -d 3 -j $(($(nproc) * 2)) -o "$TMP/forker.txt" 2>"$TMP/err"
check "storm: exits with the command's status 0" [ $? -eq 0 ]
steal=$(($(steal_ns) - st0))
cat "$TMP/forker.txt"
e=$(jcommand "$TMP/storm.jsonl" cpu-clock) k=$(tree_cpu_ns "$TMP/forker.txt")
unt=$(untraced_ns "$TMP/storm.jsonl")
echo "      command row cpu-clock $e ns, the tree's CPU time (rusage) $k ns, steal $((steal / 1000000)) ms, untraced $((unt / 1000000)) ms"
check "storm: the command row matches the tree's CPU time within 5% (+ steal + untraced)" \
	near_steal "$e" "$k" 5 $((steal + unt))
check "storm: nothing on stderr" [ ! -s "$TMP/err" ]

# more processes than the maps hold: 400 processes of 2 ms each, one after
# the other, with room for 64 (process x CPU) keys
n=400
"$EMON" stat --energy none -e cpu-clock --max-procs 64 --by system --json-rows -o "$TMP/small.jsonl" -- \
	sh -c "for i in \$(seq $n); do $BURN 0.002; done" 2>"$TMP/err"
check "--max-procs 64: exits 0" [ $? -eq 0 ]
e=$(jcommand "$TMP/small.jsonl" cpu-clock) unt=$(untraced_ns "$TMP/small.jsonl")
echo "      command row cpu-clock $e ns for $((n * 2)) ms of known work, untraced $((unt / 1000000)) ms; stderr:"
sed 's/^/      | /' "$TMP/err"
check "--max-procs 64: the command row has the $n processes' known work (>= 97%, - untraced time)" \
	[ $((e + unt)) -ge $((n * 2000000 * 97 / 100)) ]

# pid reuse: the command's child P exits, then an unrelated burner is
# made to get pid P (ns_last_pid = P - 1, retried if another fork on the
# machine takes it first) and burns 1 s while the command still runs
"$EMON" stat --energy none -e cpu-clock --json-rows -o "$TMP/reuse.jsonl" -- \
	sh -c "$BURN -p $TMP/pid 0.001; i=0; while [ ! -e $TMP/done ] && [ \$i -lt 1500 ]; do sleep 0.02; i=\$((i + 1)); done" &
epid=$!
for _ in $(seq 250); do [ -s "$TMP/pid" ] && break; sleep 0.02; done
P=$(cat "$TMP/pid")
got=
if [ -w /proc/sys/kernel/ns_last_pid ] && [ -n "$P" ]; then
	for _ in $(seq 100); do
		[ -d /proc/"$P" ] && { sleep 0.01; continue; }
		echo $((P - 1)) >/proc/sys/kernel/ns_last_pid
		"$BURN" 1.0 &
		b=$!
		if [ "$b" -eq "$P" ]; then
			wait "$b"
			got=1
			break
		fi
		kill "$b" 2>/dev/null
		wait "$b" 2>/dev/null
	done
fi
touch "$TMP/done"
wait $epid
if [ -z "$got" ]; then
	echo "      could not give pid $P to another process (ns_last_pid): pid reuse not tried"
else
	e=$(jcommand "$TMP/reuse.jsonl" cpu-clock)
	echo "      command row cpu-clock $e ns; an unrelated burner reused its child's pid $P for 1 s of CPU"
	check "pid reuse: the unrelated process is not counted (command row < 0.5 s)" [ "$e" -lt 500000000 ]
fi
finish
