#!/usr/bin/env bash
# The events the switch program counts itself, with no perf_event, against
# what the kernel counted for the same process: a command that moves itself
# between two CPUs N times (sched_setaffinity: one migration each, then a
# run on the new CPU), sleeps between the moves and burns a little, then
# reports its own se.nr_migrations (/proc/self/sched), its context
# switches (/proc/self/status) and its CPU time (/proc/self/schedstat).
# Its command row (the whole tree: this one process) must show:
#  - cpu-migrations: its se.nr_migrations (each move; the switch program,
#    as the kernel's perf event, counts one at a switch-in however many
#    moves came before it, and a switch-in kept out of the tracepoint
#    lets its move merge with the next: less the switches untraced during
#    the run, on any CPU, that emon-perf -v counts), + at most 2 (moves on
#    its way out, after the report);
#  - context-switches: the switches it reported (less the untraced ones),
#    + at most 10 (exiting);
#  - task-clock = cpu-clock exactly (both are the slices' time), within 2%
#    + the steal of the run + the time whose owner emon-perf estimated
#    (lib.sh untraced_v_ns, from the same -v log) + 20 ms (exiting, after
#    the report) of its sum_exec_runtime, which leaves out steal;
# and emon-perf holds no perf_event for these four events (in the counter
# pass, tests/run.sh --counters: one per CPU each, and task-clock and
# cpu-clock two counters within 0.1%).
. "$(dirname "$0")/lib.sh"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs to move between"
N=200
cat >"$TMP/mover.py" <<'PY'
import os, sys, time
n = int(sys.argv[1])
cpus = sorted(os.sched_getaffinity(0))[:2]
for i in range(n):
    os.sched_setaffinity(0, {cpus[i % 2]})
    time.sleep(0.001)
    t = time.process_time() + 0.0005
    while time.process_time() < t:
        pass
def field(path, name):
    for line in open(path):
        if line.startswith(name):
            return int(float(line.split(":")[1]))
mig = field("/proc/self/sched", "se.nr_migrations")
sw = (field("/proc/self/status", "voluntary_ctxt_switches") +
      field("/proc/self/status", "nonvoluntary_ctxt_switches"))
run = int(open("/proc/self/schedstat").read().split()[0])
print(os.getpid(), mig, sw, run, flush=True)
PY
st0=$(steal_ns)
"$EMON" stat -v -e cpu-clock,task-clock,context-switches,cpu-migrations --json-rows -o "$TMP/o.jsonl" \
	-- "$PY3" "$TMP/mover.py" $N >"$TMP/mover.out" 2>"$TMP/err" &
epid=$!
fds=
for _ in $(seq 100); do		# its programs attached: what it holds then
	[ -n "$(bpf_ids $epid | grep link)" ] && { fds=$(perf_fds $epid); break; }
	sleep 0.05
done
wait $epid
check "exits 0" [ $? -eq 0 ]
steal=$(($(steal_ns) - st0))
read -r pid mig sw run <"$TMP/mover.out"
echo "      the command: pid $pid, se.nr_migrations $mig, context switches $sw, CPU time $run ns"
# the counter pass reads all four from perf_events of their own
want=$(per_mode 0 $((4 * $(nproc))))
check "$want perf_events held for the four events ($fds)" [ "${fds:-x}" = "$want" ]
m=$(jrow "$TMP/o.jsonl" command "$pid" cpu-migrations)
c=$(jrow "$TMP/o.jsonl" command "$pid" context-switches)
cc=$(jrow "$TMP/o.jsonl" command "$pid" cpu-clock)
tc=$(jrow "$TMP/o.jsonl" command "$pid" task-clock)
echo "      emon-perf: cpu-migrations $m, context-switches $c, cpu-clock $cc ns, task-clock $tc ns"
u=$(untraced_switches "$TMP/err")
echo "      untraced switches during the run, all CPUs: $u"
check "cpu-migrations $m: its nr_migrations $mig (- $u untraced: a switch-in kept out of the tracepoint lets its move merge with the next), + at most 2 on its way out" \
	[ "$m" -ge $((mig - u)) -a "$m" -le $((mig + 2)) ]
check "context-switches $c: its $sw switches (- $u untraced), + at most 10 on its way out" \
	[ "$c" -ge $((sw - u)) -a "$c" -le $((sw + 10)) ]
# from the switch both are its timestamps; two counters read one after the
# other at every switch differ by what passes between the reads
if [ "$(per_mode default counters)" = counters ]; then
	check "task-clock = cpu-clock, two counters read at every switch: within 0.1% ($tc, $cc)" \
		"$PY3" -c "import sys; sys.exit(abs($tc - $cc) > 0.001 * $cc)"
else
	check "task-clock = cpu-clock ($tc, $cc)" [ "$tc" = "$cc" ]
fi
unt=$(untraced_v_ns "$TMP/err")
check "cpu-clock: its CPU time within 2% + steal ($((steal / 1000)) us) + untraced ($((unt / 1000)) us) + 20 ms" \
	near_steal "$cc" "$run" 2 $((steal + unt + 20000000))
finish
