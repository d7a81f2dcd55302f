#!/usr/bin/env bash
# CPU hotplug during a run. A CPU going offline takes its perf events with
# it for good, so emon-perf must open new ones when the CPU comes back.
# cpu1 goes offline before emon-perf starts (it starts with no events
# there), comes online, goes offline again during the run and comes back;
# a second run sees it go and come back within one read period (1 s).
# After each return a burner pinned to cpu1 (taskset) burns a known amount
# of CPU time (tools/burn stops at 1 s of it), and its process row must
# count it again: within 5% + the steal of its run (cpu-clock includes the
# steal, the burner's own clock not). Every interval, the CPU rows and the
# process rows add up exactly to the system row and nothing is absurd (a
# delta between an old and a new event wraps); the system's cpu-clock is
# online CPUs x time, and cpu1's row is 0 while it is offline. Both runs
# exit 0 with nothing on stderr (-v messages aside), hold one perf_event fd
# per CPU per event that needs a counter after the comebacks (the dead ones
# closed), and leave nothing attached. Run 1's cpu-clock and
# context-switches come from the switch itself (no perf_event; its clock
# stops while the CPU is offline), page-faults from a counter; run 2 reads
# cpu-clock from its perf_event (EMON_SWITCH_EVENTS=counters): how a dead
# event is told apart and replaced.
# counter pass: its run 2 reads every event from its counter already; run 1 counts the default fds
# Note: taking a CPU offline disturbs anything else running (processes
# pinned to it are moved): run it on a quiet machine.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: only root can take a CPU offline"
[ -d /sys/devices/system/cpu/cpu1 ] || skip "one CPU: none can go offline"
ctl=/sys/devices/system/cpu/cpu1/online
[ -e "$ctl" ] || skip "cpu1 cannot be taken offline here (no $ctl)"
[ -w "$ctl" ] || skip "cpu1 cannot be taken offline here ($ctl is not writable)"
command -v taskset >/dev/null || skip "no taskset to pin the burner"
echo 1 >"$ctl" || skip "cpu1 cannot be brought online"
trap 'echo 1 >"$ctl" 2>/dev/null; cleanup' EXIT
ncpu=$(nproc)
OUT=$TMP/out.jsonl

# cpu1_clock_after N: cpu1's cpu-clock in each row after line N of $OUT
cpu1_clock_after() {
	tail -n +"$(($1 + 1))" "$OUT" 2>/dev/null |
		sed -n 's/.*"scope":"cpu","key":1,"counters":{"cpu-clock":\([0-9]*\).*/\1/p'
}

# wait_cpu1 N zero|counted: poll (up to 5 s) until cpu1's last row after
# line N of $OUT shows it offline (0) or counted again (> 0)
wait_cpu1() {
	local v
	for _ in $(seq 100); do
		v=$(cpu1_clock_after "$1" | tail -1)
		[ "$2" = zero ] && [ "$v" = 0 ] && return 0
		[ "$2" = counted ] && [ -n "$v" ] && [ "$v" != 0 ] && return 0
		sleep 0.05
	done
	echo "      cpu1 never showed $2 in the output"
	return 1
}

lines() { wc -l <"$OUT"; }

# cpu1_set 0|1 WHAT [VAR]: take cpu1 offline (0) or bring it online (1),
# VAR (when named) set to when, in seconds since t0; then check WHAT:
# cpu1's row in the output shows it (wait_cpu1: zero, or counted)
cpu1_set() {
	local n
	n=$(lines)
	echo "$1" >"$ctl"
	[ -n "${3:-}" ] && printf -v "$3" %s "$(since_t0)"
	check "$2" wait_cpu1 "$n" "$([ "$1" = 1 ] && echo counted || echo zero)"
}

# since_t0: seconds from t0 to now
since_t0() {
	awk -v a="$EPOCHREALTIME" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }'
}

# burn_on_cpu1 NAME: burn 1 s of CPU time pinned to cpu1; sets NAME_pid,
# NAME_steal (ns stolen meanwhile) and NAME_t0/NAME_t1 (seconds since t0)
burn_on_cpu1() {
	local st p
	st=$(steal_ns)
	printf -v "$1_t0" %s "$(since_t0)"
	taskset -c 1 "$BURN" 1 &
	p=$!
	wait $p
	printf -v "$1_t1" %s "$(since_t0)"
	printf -v "$1_pid" %s $p
	printf -v "$1_steal" %s $(($(steal_ns) - st))
}

# --- run 1: offline at the start, back, offline, back (-I 100) ---
echo 0 >"$ctl" 2>"$TMP/why" || skip "the kernel refuses to take cpu1 offline: $(cat "$TMP/why")"
"$EMON" stat -a --energy none -e cpu-clock,context-switches,page-faults --by system,cpu,process -I 100 \
	--json-rows -o "$OUT" 2>"$TMP/err" &
pid=$!
wait_attached $pid
t0=$EPOCHREALTIME	# emon-perf's intervals count from about here
fds0=$(perf_fds $pid)
ids=$(bpf_ids $pid)
sleep 1
on_a=$(since_t0)
cpu1_set 1 "cpu1, offline at the start, is counted once online"
burn_on_cpu1 b1
cpu1_set 0 "cpu1's row is 0 once it is offline" off_b1
sleep 1
on_b0=$(since_t0)
cpu1_set 1 "cpu1 is counted again once back online"
burn_on_cpu1 b2
fds1=$(perf_fds $pid)
check "emon-perf is still running" [ -d /proc/$pid ]
kill -INT $pid
wait $pid
check "exits 0" [ $? -eq 0 ]
check "nothing on stderr" [ ! -s "$TMP/err" ]
sed 's/^/      | /' "$TMP/err" | head -5
check "perf_event fds: $fds1 after two comebacks = $ncpu CPUs x 1 event with a counter" [ "$fds1" -eq "$ncpu" ]
check "its BPF programs and links are gone after SIGINT" bpf_gone "$ids"
echo "      $fds0 perf_event fds at the start (cpu1 offline)"

# 1 s of CPU time, within 5% + the steal and the time whose owner was
# estimated in the intervals it ran (lib.sh untraced_during)
for b in b1 b2; do
	p=${b}_pid s=${b}_steal
	got=$(jsum_counter "$OUT" process "${!p}" cpu-clock)
	check "burner $b on cpu1: process row's cpu-clock = 1 s of CPU time (5% + steal + untraced)" \
		near_steal "$got" 1e9 5 $((${!s} + $(untraced_during "$OUT" "${!p}" process)))
done

"$PY3" - "$OUT" "$ncpu" "$on_a" "$b1_t0" "$b1_t1" "$off_b1" "$on_b0" "$b2_t0" "$b2_t1" <<'PY'
import json, sys, collections
f, ncpu = sys.argv[1], int(sys.argv[2])
on_a, b1_0, b1_1, off_b, on_b, b2_0, b2_1 = (float(x) for x in sys.argv[3:10])
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(f):
    r = json.loads(l)
    rows[r["interval"]][r["scope"]].append(r)
# 0.3 s margins: t0 is only known to a few tens of ms
spans = {"start, cpu1 offline": (0, on_a - 0.3, ncpu - 1),
         "burner 1 on cpu1": (b1_0 + 0.3, b1_1 - 0.3, ncpu),
         "cpu1 offline": (off_b + 0.3, on_b - 0.3, ncpu - 1),
         "burner 2 on cpu1": (b2_0 + 0.3, b2_1 - 0.3, ncpu)}
phase = {k: [] for k in spans}
bad_sum = bad_big = known = 0
prev = 0.0
for t in sorted(rows):
    by, dt = rows[t], t - prev
    sysc = by["system"][0]["counters"]
    for scope in ("cpu", "process"):
        for ev, v in sysc.items():
            got = sum(r["counters"][ev] for r in by[scope])
            if got == v:
                continue
            # Known: a CPU's last switches as it goes offline, after the
            # flush round that found it offline, land in its old buffer,
            # read with the interval after theirs (process rows 100 vs 101,
            # 53 vs 58 seen; in 1 run of 6 before a CPU back from offline
            # caught up with the current epoch, none in 18 since; cpu-clock
            # adds up). Allowed there: 10% of the
            # switches (at least 1), in at most 3 intervals (one per
            # transition); anything else adds up exactly.
            if ev in ("context-switches", "cpu-migrations") and abs(got - v) <= max(1, v // 10):
                print(f"      known: t={t:.3f} {scope} {ev}: rows add up to {got}, system {v}")
                known += 1
                continue
            if not bad_sum:
                print(f"      t={t:.3f} {scope} {ev}: rows add up to {got}, system {v}")
            bad_sum += 1
    if sysc["cpu-clock"] > ncpu * dt * 1e9 * 1.05 + 5e6:
        print(f"      t={t:.3f}: system cpu-clock {sysc['cpu-clock'] / 1e6:.1f} ms in {dt * 1e3:.1f} ms x {ncpu} CPUs")
        bad_big += 1
    mine = [r["counters"]["cpu-clock"] for r in by["cpu"] if r["key"] == 1]
    for name, (a, b, _) in spans.items():
        if prev >= a and t <= b:
            phase[name].append((dt, sysc["cpu-clock"], sum(mine), bool(mine)))
    prev = t
res = [int(bad_sum == 0 and known <= 3), int(bad_big == 0)]
for name, (_, _, online) in spans.items():
    p = phase[name]
    if not p:
        print(f"      no interval wholly in '{name}'")
        res += [0, 0]
        continue
    dt = sum(x[0] for x in p)
    clk = sum(x[1] for x in p) / 1e9
    own = sum(x[2] for x in p) / 1e9
    want_own = 0 if online < ncpu else dt
    print(f"      {name}: {len(p)} intervals, {dt:.2f} s: system cpu-clock {clk:.3f} s "
          f"(expected {online} x {dt:.2f} = {online * dt:.3f}), cpu1 {own:.3f} s (expected {want_own:.3f})"
          + ("" if all(x[3] for x in p) else ", cpu1 had no row"))
    res += [int(abs(clk - online * dt) <= 0.03 * online * dt), int(abs(own - want_own) <= 0.03 * dt)]
open(f + ".res", "w").write(" ".join(map(str, res)) + "\n")
PY
read -r sums big s_sys s_own b1_sys b1_own o_sys o_own b2_sys b2_own <"$OUT.res"
check "cpu and process rows add up to the system row exactly, every interval (but the known bug: switches at cpu1's going offline, 10%, at most 3 intervals)" [ "$sums" = 1 ]
check "no absurd interval (a delta between two events)" [ "$big" = 1 ]
check "cpu1 offline at the start: system cpu-clock = $((ncpu - 1)) CPUs x time (3%)" [ "$s_sys" = 1 ]
check "cpu1 offline at the start: no cpu1 count" [ "$s_own" = 1 ]
check "burner 1: system cpu-clock = $ncpu CPUs x time (3%)" [ "$b1_sys" = 1 ]
check "burner 1: cpu1's cpu-clock = time (3%)" [ "$b1_own" = 1 ]
check "cpu1 offline: system cpu-clock = $((ncpu - 1)) CPUs x time (3%)" [ "$o_sys" = 1 ]
check "cpu1 offline: cpu1's row is 0" [ "$o_own" = 1 ]
check "burner 2: system cpu-clock = $ncpu CPUs x time again (3%)" [ "$b2_sys" = 1 ]
check "burner 2: cpu1's cpu-clock = time again (3%)" [ "$b2_own" = 1 ]

# --- run 2: offline and back between two reads (no -I: 1 s reads) ---
EMON_SWITCH_EVENTS=counters "$EMON" stat -a -v --energy none -e cpu-clock --by system,process --json-rows -o "$TMP/out2.jsonl" \
	2>"$TMP/err2" &
pid=$!
wait_attached $pid
ids=$(bpf_ids $pid)
sleep 1.2	# the read period starts short and doubles up to 1 s
echo 0 >"$ctl"
echo 1 >"$ctl"
for _ in $(seq 100); do
	grep -q 'cpu1 is online' "$TMP/err2" && break
	sleep 0.05
done
check "quick offline and back: cpu1's events reopened" grep -q 'cpu1 is online' "$TMP/err2"
if grep -q 'within the interval' "$TMP/err2"; then
	echo "      told by cpu1's stopped clock (both flushes saw it online)"
elif grep -q 'went offline' "$TMP/err2"; then
	echo "      told by a flush that found cpu1 offline"
fi
burn_on_cpu1 b3
kill -INT $pid
wait $pid
check "exits 0" [ $? -eq 0 ]
check "no warning or error on stderr" [ -z "$(grep -v -e 'cpu1 ' -e 'interval: flush' -e 'cgroup2 mounted' -e 'failed counter reads' -e 'did not trace' "$TMP/err2")" ]
grep -v -e 'interval: flush' "$TMP/err2" | sed 's/^/      | /' | head -8
check "its BPF programs and links are gone after SIGINT" bpf_gone "$ids"
got=$(jrow "$TMP/out2.jsonl" process "$b3_pid" cpu-clock)
check "burner 3 on cpu1: process row's cpu-clock = 1 s of CPU time (5% + steal + untraced)" \
	near_steal "$got" 1e9 5 $((b3_steal + $(untraced_ns "$TMP/out2.jsonl")))
finish
