# Sourced by tests/integration/lib.sh (its functions and variables are
# in scope): what two truths of one run may differ by: the time the hypervisor
# stole, and the time whose owner emon-perf estimated (untraced).

# steal_ns: CPU time the hypervisor stole so far, all CPUs (/proc/stat).
# Time events (cpu-clock) include it, the scheduler's accounting
# (cpu.stat) leaves it out (CONFIG_PARAVIRT_TIME_ACCOUNTING), so in a VM
# the two may differ by up to the steal of the run.
steal_ns() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.0f\n", $9 * 1e9 / hz }' /proc/stat
}

# irq_ns: the time all CPUs spent in interrupts (hard and soft) so far
# (/proc/stat). Time events (cpu-clock, as perf's task-clock) count an
# interrupt in the task it fell on; where the kernel accounts interrupt
# time apart (CONFIG_IRQ_TIME_ACCOUNTING, Debian's kernels), the
# scheduler's accounting (cpu.stat, schedstat, rusage) leaves it out. On
# this machine interrupts take under 0.1% of the time (and its kernel
# does not account them apart); in a QEMU TCG guest, whose emulated
# devices (its timers' among them) run under QEMU's one lock, 40-700 ms
# of a 2-3 s test on 2 CPUs (tests/vm/). Timer interrupts, most of it,
# fall on whatever runs: a comparison allows a task's part of it
# (steal_part below), as cgroup_cpustat and command_mode do.
irq_ns() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.0f\n", ($7 + $8) * 1e9 / hz }' /proc/stat
}

# near_steal A B TOL_PERCENT STEAL_NS: like near, allowing the steal too
# (and, where a test adds it, untraced time: see untraced_ns)
near_steal() {
	near_plus "$1" "$2" "$3" "$4" "steal/untraced "
}

# untraced_ns FILE: the time, in ns, whose owner emon-perf had to estimate
# in a --json-rows recording (its system rows' untraced_ns, summed; 0 when absent).
# The sandbox these tests run in keeps its agent's threads out of the
# sched_switch tracepoint (they switch thousands of times a second, 4-50
# ms of CPU time a second here); emon-perf splits such slices by CFS run
# time where it can (docs/stat.md, "Reading the numbers"), so up to that
# much time can land in another task and cgroup than the kernel's. Like
# steal, the comparisons of a time allow it; on a kernel that traces every
# switch it is 0.
untraced_ns() {
	"$PY3" -c '
import json, sys
print(sum(json.loads(l).get("untraced_ns", 0) for l in open(sys.argv[1])
          if json.loads(l)["scope"] == "system"))' "$1"
}

# untraced_count COUNT UNTRACED_NS CLOCK_NS: how much of a count went
# with its untraced time, at the run's own rate (COUNT per CLOCK_NS):
# a slice after an untraced switch is split by CFS run time, its counts
# with it, so up to that much may sit in another task (0 without a clock)
untraced_count() {
	"$PY3" -c 'import sys; c, u, t = map(float, sys.argv[1:4]); print(round(c * u / t) if t > 0 else 0)' \
		"${1:-0}" "${2:-0}" "${3:-0}"
}

# untraced_switches FILE: how many switches went untraced (as above) on any
# CPU during a run whose emon-perf -v stderr is FILE: the slices that
# followed one, summed over its reads; 0 when none was said
untraced_switches() {
	sed -n 's/.* \([0-9]*\) slices (.* followed context switches the kernel did not trace.*/\1/p' "$1" |
		awk '{ n += $1 } END { print n + 0 }'
}

# untraced_v_ns FILE [FROM [TO]]: untraced_ns as above from emon-perf's
# -v stderr (FILE), where no system row is beside the count (thread rows,
# -x output): the figures of its reads summed, in ns. FROM and TO: FILE's
# line counts when a window opened and closed (gate_cmd and gate_window
# take them with GATE_LOG): only the reads that cover the window, those
# after line FROM up to the first that starts after line TO (its slices
# hold the window's end). Each read is an "interval: flush" line and its
# figure after it. FILE may be a daemon's -v log: its reads, an attached
# stat's snapshots among them, cover the stat's window the same way.
untraced_v_ns() {
	[ -r "$1" ] || { echo 0; return; }
	awk -v a="${2:-0}" -v b="${3:-}" '
		NR <= a { next }
		/ interval: flush / && b != "" && NR > b + 0 && ++after > 1 { exit }
		/ slices \(.* ms of cpu-clock\) followed context switches/ {
			x = $0
			sub(/.* slices \(/, "", x)
			s += x + 0
		}
		END { printf "%.0f\n", s * 1e6 }' "$1"
}
# untraced_gate DIR LOG: untraced_v_ns of LOG over DIR's last gate (its
# marks; all of LOG without them)
untraced_gate() {
	local m0= m1=
	[ -r "$1/marks" ] && read -r m0 m1 <"$1/marks"
	untraced_v_ns "$2" "$m0" "$m1"
}

# untraced_during FILE CGROUP [SCOPE]: untraced_ns as above, summed over
# only the intervals of a -I recording with --by cgroup in which CGROUP or
# a cgroup under it ran: the time whose owner was guessed while it could
# have been CGROUP's. Tighter than a whole long run's untraced_ns for a
# cgroup that ran in part of it. SCOPE process: of the process row of pid
# CGROUP (--by process) instead.
untraced_during() {
	"$PY3" -c '
import json, sys, collections
f, cg, scope = sys.argv[1:4]
unt, ran = collections.Counter(), set()
for l in open(f):
    r = json.loads(l)
    k = str(r["key"])
    if r["scope"] == "system":
        unt[r["interval"]] += r.get("untraced_ns", 0)
    elif r["scope"] == scope and (k == cg or (scope == "cgroup" and k.startswith(cg + "/"))) \
            and (r["counters"].get("cpu-clock") or 0) > 0:
        ran.add(r["interval"])
print(sum(unt[t] for t in ran))' "$1" "$2" "${3:-cgroup}"
}

# steal_part STEAL PART WHOLE: the steal (ns) that could have fallen in
# PART of WHOLE (e.g. a cgroup's cpu-clock of the system's): steal lands
# on whatever runs, in proportion. Two counters of one run (emon-perf and
# perf -G) can disagree by up to that, on top of their own tolerance.
steal_part() {
	python3 -c 'import sys; s, p, w = map(float, sys.argv[1:4]); print(f"{s * p / w if w > 0 else s:.0f}")' "$1" "$2" "$3"
}

# metrics_untraced_ns PORT: the daemon's emon_untraced_seconds_total in ns,
# the time it guessed the owner of (tasks hidden from tracepoints): what
# could have moved between cgroups (untraced_ns above)
metrics_untraced_ns() {
	curl -s "http://127.0.0.1:$1/metrics" |
		awk '$1 == "emon_untraced_seconds_total" { printf "%.0f", $2 * 1e9 }'
}

# life_outside_ns FILE PID SPAN_NS: of process PID's life, what a --sched
# --json-rows recording's final row (its "exit" lifetime) has beyond the SPAN_NS
# that the process measured itself (from its start to its span's, and its
# exit after its last read), in ns; 0 without an exit row
life_outside_ns() {
	"$PY3" -c '
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1]))
        if r["scope"] == "process" and str(r["key"]) == sys.argv[2]]
e = rows[-1].get("sched", {}).get("exit") if rows else None
print(max(0, e["lifetime_ns"] - int(sys.argv[3])) if e else 0)' "$@"
}
