#!/usr/bin/env bash
# Another tool's cgroup perf_events stop emon-perf's per-CPU events: at
# every cgroup switch the kernel reschedules each PMU context that holds
# cgroup events, and a cpu-clock event does not count between its del and
# add. A cross-cgroup ping-pong on the last CPU, emon-perf counting
# system-wide for 3 s, reading every 100 ms (-I 100: each interval is one
# of its read periods, so the wall time between two reads, the reference,
# is an interval's):
#  - alone: every CPU row's cpu-clock is the run's length (1%), no warning;
#  - beside perf stat --for-each-cgroup counting cpu-clock, with cpu-clock
#    from the switch itself (the default): it has no perf_event to stop,
#    so every CPU row is the run's length (1%) and there is no warning;
#  - the same with cpu-clock read from its perf_event
#    (EMON_SWITCH_EVENTS=counters): the CPU of the ping-pong falls short,
#    and emon-perf says so once, naming that CPU and the figure of the
#    read period its rule fired on: the second in a row whose worst CPU is
#    that one, short by over 1%, found again from the rows (the counts the
#    kernel's counter gave over that interval against its length);
#  - beside perf counting task-clock (a PMU of its own; what the other
#    tests compare against, PERF_TIME in lib.sh): nothing lost, no warning.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"
NCPU=$(nproc)
[ "$NCPU" -ge 2 ] || skip "needs 2 CPUs (the ping-pong on one, the rest on others)"
W=$((NCPU - 1))
a=$(cg_new a) b=$(cg_new b)

# run NAME [PERF_EVENT]: the ping-pong for 4 s, emon-perf for 3 s within it
run() {
	local name=$1 ev=${2:-}
	"$TOOLS/pingpong" -c "$W" -d 4 "$CGROOT$a" "$CGROOT$b" >/dev/null 2>&1 &
	local pp=$! pf=
	BG_PIDS+=($pp)
	sleep 0.3
	if [ -n "$ev" ]; then
		taskset -c 0 perf stat -a -x, -e "$ev" --for-each-cgroup "${a#/},${b#/}" \
			-o "$TMP/$name.perf" -- sleep 3.5 &
		pf=$!
		sleep 0.2
	fi
	EMON_SWITCH_EVENTS=${SWITCH_EVENTS:-} taskset -c 0 "$EMON" stat -a --energy none \
		-e cpu-clock,context-switches --by system,cpu \
		--timeout 3000 -I 100 --json-rows -o "$TMP/$name.jsonl" 2>"$TMP/$name.err"
	check "$name: exits 0" [ $? -eq 0 ]
	[ -n "$pf" ] && wait "$pf"
	wait "$pp"
	sed 's/^/      | /' "$TMP/$name.err"
	# the ping-pong CPU's shortfall against the run's length, and the
	# intervals (read periods) around the one the warning's rule fires on
	"$PY3" - "$TMP/$name.jsonl" "$W" <<'PY' >"$TMP/$name.res"
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1])]
ends = sorted({r["interval"] for r in rows})
length = dict(zip(ends, [b - a for a, b in zip([0.0] + ends, ends)]))
cpu = collections.defaultdict(dict)
for r in rows:
    if r["scope"] == "cpu":
        cpu[str(r["key"])][r["interval"]] = r["counters"]["cpu-clock"]
short = {k: 100 * (1 - sum(v.values()) / (ends[-1] * 1e9)) for k, v in cpu.items()}
def deficit(k, t):
    return 1 - cpu[k].get(t, 0) / (length[t] * 1e9)
# engine/engine.c check_clock(): each read, the CPU that fell shortest; it
# warns when the same CPU is short by over 1% two reads in a row
per, prev = [], None
for i, t in enumerate(ends):
    if length[t] < 0.01:
        continue
    k = max(cpu, key=lambda k: deficit(k, t))
    if deficit(k, t) <= 0.01:
        prev = None
    elif k == prev:
        per = [100 * deficit(k, u) for u in ends[max(i - 1, 0):i + 2]]
        break
    else:
        prev = k
print(" ".join(f"cpu{k} {v:.2f}%" for k, v in sorted(short.items())) +
      f"; the rule fires at an interval short by: " + " ".join(f"{v:.2f}%" for v in per[1:2] or per) +
      " (its neighbours " + " ".join(f"{v:.2f}%" for v in per[:1] + per[2:]) + ")", file=sys.stderr)
print(f"{short[sys.argv[2]]:.2f} {max(abs(v) for v in short.values()):.2f} " + (",".join(f"{v:.2f}" for v in per) or "nan"))
PY
	read -r SHORT WORST PER <"$TMP/$name.res"
}

run alone
check "alone: every CPU's cpu-clock is the run's length within 1% (worst $WORST%)" \
	"$PY3" -c "import sys; sys.exit(abs($WORST) > 1)"
check "alone: nothing on stderr" [ ! -s "$TMP/alone.err" ]

run perf_cpu_clock_switch cpu-clock
check "beside perf -G cpu-clock, cpu-clock from the switch: every CPU's cpu-clock is the run's length within 1% (worst $WORST%)" \
	"$PY3" -c "import sys; sys.exit(abs($WORST) > 1)"
check "beside perf -G cpu-clock, cpu-clock from the switch: nothing on stderr" \
	[ ! -s "$TMP/perf_cpu_clock_switch.err" ]

SWITCH_EVENTS=counters run perf_cpu_clock cpu-clock
# short by more than the warning's own 1% (how much more is the
# ping-pong's switch rate, which a busy machine lowers: 1.47% in one CI-like
# run against the 2% this asked before)
check "beside perf -G cpu-clock: cpu$W's cpu-clock falls short ($SHORT%, > 1%, the warning's rule)" \
	"$PY3" -c "import sys; sys.exit($SHORT <= 1)"
check "beside perf -G cpu-clock: one warning" [ "$(grep -c 'cpu-clock on cpu' "$TMP/perf_cpu_clock.err")" -eq 1 ]
said=$(grep -o "cpu-clock on cpu$W counted [0-9.]*%" "$TMP/perf_cpu_clock.err" | grep -o '[0-9.]*%' | tr -d %)
check "beside perf -G cpu-clock: the warning names cpu$W and says perf stat -G" \
	grep -q "cpu-clock on cpu$W counted .*perf stat -G" "$TMP/perf_cpu_clock.err"
# the figure is the read period's its rule fired on (the second short one
# in a row on that CPU), which the rows give as an interval's: within 0.5
# point of it (the figure is rounded to 0.1; the CPU's own flush times
# against the interval's), or of a neighbour's, should a busy machine
# have made the loop take a read of its own between two prints
check "beside perf -G cpu-clock: its figure (${said:-none}%) is the shortfall of the interval its rule fires on, or a neighbour's ($PER%), within 0.5 point" \
	"$PY3" -c "import sys; sys.exit(not any(abs(float('${said:-nan}') - v) <= 0.5 for v in [$PER]))"
check "beside perf -G cpu-clock: nothing else on stderr" \
	[ "$(grep -vc 'cpu-clock on cpu' "$TMP/perf_cpu_clock.err")" -eq 0 ]

run perf_task_clock "$PERF_TIME"
check "beside perf -G $PERF_TIME: every CPU's cpu-clock is the run's length within 1% (worst $WORST%)" \
	"$PY3" -c "import sys; sys.exit(abs($WORST) > 1)"
check "beside perf -G $PERF_TIME: nothing on stderr" [ ! -s "$TMP/perf_task_clock.err" ]
finish
