# Sourced by the integration tests: cgroups of their own (removed on exit),
# checks that print one line each, and the paths of the binaries.
# Exit codes: 0 pass, 1 fail, 77 skip.
set -u
EMON=${EMON:-$PWD/emon-perf}
TOOLS=${TOOLS:-${OUTPUT:-build}/tools}
BURN=$TOOLS/burn
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
# in memory where there is a tmpfs, like the sysfs files the fake powercap
# trees stand for: on a disk, fake-rapl's renames stalled behind other
# I/O (a 1 s window read 1.3 W while the tree drew 28 W)
TMP=$(mktemp -d /dev/shm/emon-test.XXXXXX 2>/dev/null || mktemp -d /tmp/emon-test.XXXXXX)
TESTCG=/emon-test-$$
# a daemon the machine may run is not ours to attach to: stat counts with
# its own events unless a test passes --socket
export EMON_PERF_SOCKET=$TMP/no-daemon.sock
FAILS=0
BG_PIDS=()
# EMON_SCHED=1: every stat and serve of the test runs with --sched, which
# must change none of what the test checks (tests/run.sh --sched)
# (beside the build, not in $TMP: tests run it as nobody too)
if [ -n "${EMON_SCHED:-}" ]; then
	w=$(cd "${OUTPUT:-build}" && pwd)/emon-sched
	printf '#!/bin/sh\nsub=$1\nshift\ncase $sub in stat|serve) exec "%s" "$sub" --sched "$@" ;; esac\nexec "%s" "$sub" "$@"\n' \
		"$EMON" "$EMON" >"$w.$$" && chmod 755 "$w.$$" && mv "$w.$$" "$w"
	EMON=$w
fi

skip() { echo "SKIP: $*"; exit 77; }
# per_mode DEFAULT COUNTERS: what a check expects by default, or in the
# counter pass (tests/run.sh --counters: EMON_SWITCH_EVENTS=counters), where
# every event is read from a perf_event of its own on every CPU
per_mode() { [ "${EMON_SWITCH_EVENTS:-}" = counters ] && echo "$2" || echo "$1"; }
# How much RSS may grow and still be flat: 1 MiB, plus ASan's quarantine
# of freed memory (capped at 16 MiB by tests/run.sh) under make asan.
RSS_SLACK_KB=1024
[[ ${ASAN_OPTIONS:-} == *quarantine_size_mb=* ]] && RSS_SLACK_KB=$((1024 + 16384))
[ -n "$CGROOT" ] || skip "no cgroup2 mount"
[ -x "$EMON" ] || { echo "FAIL: $EMON not built"; exit 1; }

cleanup() {
	local d
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	if [ -d "$CGROOT$TESTCG" ]; then
		# kill stragglers (forking loops too: cgroup.kill takes the
		# whole subtree at once), wait until it is empty, remove it
		if [ -e "$CGROOT$TESTCG/cgroup.kill" ]; then
			echo 1 >"$CGROOT$TESTCG/cgroup.kill" 2>/dev/null
			for _ in $(seq 100); do
				grep -q '^populated 0' "$CGROOT$TESTCG/cgroup.events" && break
				sleep 0.02
			done
		else
			for d in $(find "$CGROOT$TESTCG" -depth -type d); do
				while read -r p; do echo "$p" >"$CGROOT/cgroup.procs" 2>/dev/null; done <"$d/cgroup.procs"
			done
		fi
		find "$CGROOT$TESTCG" -depth -type d -exec rmdir {} + 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# cg_new REL: make $TESTCG/REL, print its path from the cgroup2 root
cg_new() {
	mkdir -p "$CGROOT$TESTCG/$1" && echo "$TESTCG/$1"
}

# cg_usage_ns PATH: the cgroup's CPU time from the kernel, in ns (%.0f:
# mawk's %d clamps at 2^31 - 1, 2.1 s)
cg_usage_ns() {
	awk '$1 == "usage_usec" { printf "%.0f\n", $2 * 1000 }' "$CGROOT$1/cpu.stat"
}

# cg_run PATH CMD...: run CMD inside the cgroup (in the background)
cg_run() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT$cg" "$@"
}

# check DESCRIPTION CONDITION...: evaluate the condition (a command)
check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok    $what"
	else
		echo "FAIL  $what"
		FAILS=$((FAILS + 1))
		return 1
	fi
}

# near A B TOL_PERCENT: |A - B| <= TOL% of B (prints the error)
near() {
	python3 -c '
import sys
a, b, tol = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
err = abs(a - b) / b * 100 if b else float("inf")
print(f"      {a:.6g} vs {b:.6g}: {err:.3f}% (tolerance {tol}%)")
sys.exit(0 if err <= tol else 1)' "$1" "$2" "$3"
}

# near_plus A B TOL_PERCENT SLACK [LABEL]: |A - B| <= TOL% of B + SLACK
# (LABEL names the slack in what it prints)
near_plus() {
	python3 -c '
import sys
a, b, tol, slack = map(float, sys.argv[1:5])
print(f"      {a:.6g} vs {b:.6g}: {abs(a - b) / b * 100:.3f}% (tolerance {tol}% + {sys.argv[5]}{slack / 1e6:.3f} ms)")
sys.exit(0 if abs(a - b) <= tol / 100 * b + slack else 1)' "$1" "$2" "$3" "$4" "${5:-}"
}

# jfield FILE SCOPE KEY SECTION FIELD: r[SECTION][FIELD] of the last row of
# that scope and key ("null" for null, "missing" when none); for SECTION
# sched, FIELD hist is the histogram's total count
jfield() {
	python3 -c '
import json, sys
f, scope, key, sec, field = sys.argv[1:6]
val = "missing"
for line in open(f):
    r = json.loads(line)
    if r["scope"] == scope and str(r["key"]) == key:
        s = r.get(sec, {})
        if sec == "sched" and field == "hist":
            val = sum(c for _, c in s["runq_latency_us"])
        else:
            v = s.get(field, "missing")
            val = "null" if v is None else v
print(val)' "$@"
}
# tree_rows FILE: what a -j recording of command mode holds of the tree,
# for a failed check: the system, CPU and command rows and the tree's
# process rows (--by system,cpu,process), their counters; returns 1
tree_rows() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["scope"] in ("system", "cpu", "command", "process"):
        print("      %-8s %-8s %-16s %s" % (r["scope"], r["key"], r.get("comm", ""), r["counters"]))' "$1"
	return 1
}

# jsched FILE SCOPE KEY FIELD: that field of "sched" in the last matching row
jsched() { jfield "$1" "$2" "$3" sched "$4"; }
# jrow FILE SCOPE KEY EVENT: that counter in the last row matching, or "null"
jrow() { jfield "$1" "$2" "$3" counters "$4"; }
# jcommand FILE EVENT: that counter in the command row of the last
# interval, "missing" if none
jcommand() {
	"$PY3" -c '
import json, sys
val = "missing"
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["scope"] == "command":
        val = r["counters"][sys.argv[2]]
print("null" if val is None else val)' "$1" "$2"
}

# bpf_ids PID: the BPF programs and links PID holds, "prog N" / "link N"
bpf_ids() {
	grep -hE '^(prog_id|link_id):' /proc/"$1"/fdinfo/* 2>/dev/null |
		sed -e 's/^prog_id:\s*/prog /' -e 's/^link_id:\s*/link /' | sort -u
}

# bpf_gone IDS: none of those programs and links exists any more. The
# kernel frees them after an RCU grace period, so poll for up to 3 s.
bpf_gone() {
	local kind id left
	for _ in $(seq 60); do
		left=
		while read -r kind id; do
			[ -n "$id" ] || continue
			bpftool "$kind" show id "$id" >/dev/null 2>&1 && left="$left $kind $id"
		done <<<"$1"
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	echo "      still there:$left"
	return 1
}

# steal_ns: CPU time the hypervisor stole so far, all CPUs (/proc/stat).
# Time events (cpu-clock) include it, the scheduler's accounting
# (cpu.stat) leaves it out (CONFIG_PARAVIRT_TIME_ACCOUNTING), so in a VM
# the two may differ by up to the steal of the run.
steal_ns() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.0f\n", $9 * 1e9 / hz }' /proc/stat
}

# near_steal A B TOL_PERCENT STEAL_NS: like near, allowing the steal too
# (and, where a test adds it, untraced time: see untraced_ns)
near_steal() {
	near_plus "$1" "$2" "$3" "$4" "steal/untraced "
}

# untraced_ns FILE: the time, in ns, whose owner emon-perf had to estimate
# in a -j recording (its system rows' untraced_ns, summed; 0 when absent).
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

# fake_rapl DIR WATTS [ARGS...]: a powercap tree advancing at WATTS per
# package in the background, ready when this returns
fake_rapl() {
	local dir=$1
	mkdir -p "$dir"
	# real-time priority: a starved helper would lag and then catch up,
	# moving energy between intervals (and past the ends of a run)
	if command -v chrt >/dev/null; then
		chrt -f 50 "$TOOLS/fake-rapl" "$@" &
	else
		"$TOOLS/fake-rapl" "$@" &
	fi
	BG_PIDS+=($!)
	local e0 e
	for _ in $(seq 200); do
		[ -e "$dir/.ready" ] && break
		sleep 0.01
	done
	[ -e "$dir/.ready" ] || { echo "FAIL  fake-rapl did not start"; FAILS=$((FAILS + 1)); return 1; }
	# and its writer is running: a baseline read before a starved writer's
	# first update would give the first intervals energy from before it
	e0=$(cat "$dir/intel-rapl:0/energy_uj")
	for _ in $(seq 200); do
		e=$(cat "$dir/intel-rapl:0/energy_uj")
		[ "$e" != "$e0" ] && return 0
		sleep 0.01
	done
	echo "FAIL  fake-rapl's energy does not advance"
	FAILS=$((FAILS + 1))
	return 1
}

# jsum FILE SCOPE FIELD: FIELD summed over the rows of SCOPE (all intervals)
jsum() {
	python3 -c '
import json, sys
f, scope, field = sys.argv[1:4]
print(sum(json.loads(l).get(field) or 0 for l in open(f) if json.loads(l)["scope"] == scope))' "$@"
}

finish() {
	[ "$FAILS" -eq 0 ] && exit 0
	echo "$FAILS check(s) failed"
	exit 1
}

# --- reliability helpers (process storms, churn, signals, long runs) ---

FORKER=$TOOLS/forker
CGCHURN=$TOOLS/cgchurn
# emon-perf's BPF object names (programs, maps), as bpftool shows them
EMON_BPF_NAMES='on_switch flush on_fork on_exec on_free on_attach events prev cpu_counts flush_ns stats cgrp_data proc_data thrd_data cgrp_idx proc_idx thrd_idx cgrp_parent cgrp_scratch split_scratch tree tree_ovf self_ctl self_slots self_arrays self_task emon_bpf.rodata emon_bpf.bss'

# python3 without a version manager's shim in front (pyenv's costs a
# second a call on a loaded machine): the helpers below call it in loops
PY3=${PY3:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}

# "${RUSAGE_RUN[@]}" FILE CMD...: run CMD; once it and every descendant it
# orphaned have ended (this is their child subreaper), write their CPU
# time in ns, as the kernel accounts it (getrusage: the wrapper's own and
# its reaped children's), to FILE; exit with CMD's status (128 + signal).
# A command word, not a function, so that a command tree can start with it
# (emon-perf stat ... -- "${RUSAGE_RUN[@]}" FILE CMD...) and hold nothing
# the FILE lacks; the reading is its last act (no interpreter teardown).
RUSAGE_RUN=("$PY3" -c '
import ctypes, os, resource, subprocess, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)	# PR_SET_CHILD_SUBREAPER
st = subprocess.call(sys.argv[2:])
while True:	# the orphans, reparented to us
    try:
        os.wait()
    except ChildProcessError:
        break
s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b"%d" % round((s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime) * 1e9))
os._exit(st if st >= 0 else 128 - st)')

# bpf_list KIND: bpftool KIND show -j, as one JSON list; again while an
# object freed as it is listed makes bpftool print {"error": ...}
bpf_list() {
	"$PY3" -c '
import json, subprocess, sys
for _ in range(10):
    r = subprocess.run(["bpftool", sys.argv[1], "show", "-j"], capture_output=True, text=True)
    try:
        v = json.loads(r.stdout or "[]")
    except ValueError:
        continue
    if isinstance(v, list):
        print(json.dumps([o for o in v if isinstance(o, dict)]))
        sys.exit(0)
print("[]")' "$1"
}

# bpf_max_ids: "prog N", "map N", "link N": the highest ids that exist now
# (ids only grow, so anything above them was made later)
bpf_max_ids() {
	local k
	for k in prog map link; do
		echo "$k $(bpf_list $k | "$PY3" -c '
import json, sys
print(max((o.get("id", 0) for o in json.load(sys.stdin)), default=0))')"
	done
}

# bpf_orphans BASE: BPF programs, maps and links with emon-perf's names,
# made after BASE (bpf_max_ids), that no process holds an fd to and (maps)
# no program uses: left behind, since nothing can ever free them. One
# "kind id name" per line; empty when there are none. Freeing takes an RCU
# grace period, and other runs may be exiting too: polls up to 3 s.
bpf_orphans() {
	local base=$1 out k
	for _ in $(seq 30); do
		for k in prog map link; do bpf_list $k >"$TMP/bpf.$k"; done
		out=$(grep -hE '^(prog_id|map_id|link_id):' /proc/[0-9]*/fdinfo/* 2>/dev/null |
			"$PY3" -c '
import json, sys
base = dict(l.split() for l in sys.argv[1].splitlines())
names = set(sys.argv[2].split())
held = {"prog": set(), "map": set(), "link": set()}
for l in sys.stdin:
    k, v = l.split(":")
    held[k[:-3]].add(int(v))
progs, maps, links = (json.loads(open(f"{sys.argv[3]}.{k}").read()) for k in ("prog", "map", "link"))
used = {m for p in progs for m in p.get("map_ids", [])}
pname = {p.get("id"): p.get("name", "") for p in progs}
for p in progs:
    i = p.get("id", 0)
    if i > int(base["prog"]) and p.get("name") in names and i not in held["prog"]:
        print("prog", i, p.get("name"))
for m in maps:
    i = m.get("id", 0)
    if i > int(base["map"]) and m.get("name") in names and i not in held["map"] and i not in used:
        print("map", i, m.get("name"))
for k in links:
    i = k.get("id", 0)
    if i > int(base["link"]) and pname.get(k.get("prog_id"), "") in names and i not in held["link"]:
        print("link", i, pname.get(k.get("prog_id")))
' "$base" "$EMON_BPF_NAMES" "$TMP/bpf")
		[ -z "$out" ] && return 0
		sleep 0.1
	done
	echo "$out"
}

# perf_fds PID: how many perf_event fds PID holds
perf_fds() {
	ls -l /proc/"$1"/fd 2>/dev/null | grep -c 'anon_inode:\[perf_event\]'
}

# bpf_fds PID: how many BPF (prog, map, link) fds PID holds
bpf_fds() {
	ls -l /proc/"$1"/fd 2>/dev/null | grep -cE 'anon_inode:bpf-(prog|map|link)'
}

# sample_proc PID FILE [PERIOD_S]: in the background, append
# "unix_time rss_kb fds" for PID every PERIOD_S (default 0.5) until it
# exits; the sampler's pid is in BG_PIDS and in $SAMPLER
sample_proc() {
	local pid=$1 file=$2 period=${3:-0.5}
	(
		while [ -d /proc/"$pid" ]; do
			rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/"$pid"/status 2>/dev/null)
			fds=$(ls /proc/"$pid"/fd 2>/dev/null | wc -l)
			[ -n "$rss" ] && echo "$EPOCHREALTIME $rss $fds"
			sleep "$period"
		done
	) >>"$file" &
	SAMPLER=$!
	BG_PIDS+=($SAMPLER)
}

# wait_attached PID: poll until PID has attached its BPF link (up to 10 s)
wait_attached() {
	for _ in $(seq 500); do
		grep -q '^link_id:' /proc/"$1"/fdinfo/* 2>/dev/null && return 0
		[ -d /proc/"$1" ] || return 1
		sleep 0.02
	done
	return 1
}

# cg_tree: every cgroup directory under the cgroup2 mount, one per line,
# relative to it (for before/after comparisons)
cg_tree() {
	(cd "$CGROOT" && find . -mindepth 1 -type d | sort)
}

# jsum_counter FILE SCOPE KEY EVENT [SECTION]: that counter (or SECTION's
# field: sched) summed over all intervals (with -I each row is a delta),
# 0 when there is no such row
jsum_counter() {
	"$PY3" -c '
import json, sys
f, scope, key, ev = sys.argv[1:5]
sec = sys.argv[5] if len(sys.argv) > 5 else "counters"
s = 0
for line in open(f):
    r = json.loads(line)
    if r["scope"] == scope and str(r["key"]) == key:
        s += r.get(sec, {}).get(ev) or 0
print(s)' "$@"
}

# The time event perf stat -G counts beside emon-perf's cpu-clock: task-clock.
# At every cgroup switch the kernel schedules out and back in every event of
# each PMU context that holds cgroup events (perf_cgroup_switch ->
# ctx_sched_out/ctx_sched_in with EVENT_CGROUP select whole PMU contexts),
# and a cpu-clock event does not count between its del and add. Cgroup
# cpu-clock events would so stop emon-perf's per-CPU cpu-clock events, which
# share their PMU, at every cgroup switch (measured: CPU 1's cpu-clock 12%
# short of wall time under a cross-cgroup ping-pong). task-clock events have a
# PMU of their own, and in a cgroup they count what cpu-clock would.
# Counting events (context-switches) lose nothing: no switch is counted
# inside the reschedule.
PERF_TIME=task-clock

# perf_csv_ns FILE EVENT: perf stat -x, value of EVENT (msec) in ns
perf_csv_ns() {
	awk -F, -v ev="$2" '$3 == ev { printf "%.0f\n", $1 * 1e6 }' "$1"
}

# perf_cg FILE EVENT CGROUP: perf stat -x, --for-each-cgroup value of EVENT
# for CGROUP (as given to perf, no leading /); time events in ns
perf_cg() {
	awk -F, -v ev="$2" -v cg="${3#/}" '$3 == ev && $4 == cg {
		if ($2 == "msec") printf "%.0f\n", $1 * 1e6; else print $1 }' "$1"
}

# cg_bg PATH CMD...: CMD in the cgroup, in the background, killed on exit.
# Its pid (sh execs it) is in $CG_BG_PID and BG_PIDS: "cg_run ... &" gives
# the pid of a subshell instead, and killing that leaves CMD running.
cg_bg() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT$cg" "$@" &
	CG_BG_PID=$!
	BG_PIDS+=($CG_BG_PID)
}
# cg_burners SECS CG...: a burner of SECS CPU seconds in each cgroup
# (one per word: a cgroup named twice gets two); their pids in BURNERS
cg_burners() {
	local secs=$1 cg
	shift
	BURNERS=()
	for cg in "$@"; do
		cg_bg "$cg" "$BURN" "$secs"
		BURNERS+=("$CG_BG_PID")
	done
}

# metrics_untraced_ns PORT: the daemon's emon_untraced_seconds_total in ns,
# the time it guessed the owner of (tasks hidden from tracepoints): what
# could have moved between cgroups (untraced_ns above)
metrics_untraced_ns() {
	curl -s "http://127.0.0.1:$1/metrics" |
		awk '$1 == "emon_untraced_seconds_total" { printf "%.0f", $2 * 1e9 }'
}

# serve_start SOCKET LOG ARGS...: emon-perf serve in the background on
# SOCKET (its stderr to LOG); $DPID, in BG_PIDS; returns once it says it
# serves (a socket left by a killed daemon is there before that), 1 if
# it ended instead
serve_start() {
	local sock=$1 log=$2
	shift 2
	"$EMON" serve --socket "$sock" "$@" 2>>"$log" &
	DPID=$!
	BG_PIDS+=($DPID)
	for _ in $(seq 500); do
		grep -q "serving .* pid $DPID:" "$log" && return 0
		[ -d /proc/$DPID ] || break
		sleep 0.02
	done
	echo "FAIL  the daemon did not start:"
	FAILS=$((FAILS + 1))
	cat "$log"
	return 1
}

# life_outside_ns FILE PID SPAN_NS: of process PID's life, what a --sched
# -j recording's final row (its "exit" lifetime) has beyond the SPAN_NS
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

# free_port: a TCP port free on 127.0.0.1 now
free_port() {
	"$PY3" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# prom_conf FILE METRICS_PORT: a Prometheus config in FILE that scrapes
# the daemon on 127.0.0.1:METRICS_PORT every second (job "emon")
prom_conf() {
	cat >"$1" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: emon
    static_configs:
      - targets: ["127.0.0.1:$2"]
EOF
}

# prom_start PORT CONFIG: a Prometheus server (Debian prometheus) on
# 127.0.0.1:PORT with the config file CONFIG, its data and log under
# $TMP, in BG_PIDS as $PROM_PID; returns once it is ready (1 if not
# within 60 s)
prom_start() {
	local port=$1 conf=$2
	prometheus --config.file="$conf" --storage.tsdb.path="$TMP/tsdb-$port" \
		--web.listen-address=127.0.0.1:$port >"$TMP/prom-$port.log" 2>&1 &
	PROM_PID=$!
	BG_PIDS+=($PROM_PID)
	for _ in $(seq 600); do
		curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null && return 0
		[ -d /proc/$PROM_PID ] || break
		sleep 0.1
	done
	echo "FAIL  prometheus did not start:"
	FAILS=$((FAILS + 1))
	tail -5 "$TMP/prom-$port.log"
	return 1
}

# energy_partitions FILE SCOPE...: in every interval of a -j recording,
# the energy rows of each SCOPE add up to the system row's (1e-6)
energy_partitions() {
	local f=$1
	shift
	"$PY3" - "$f" "$@" <<'PY'
import json, sys, collections
by = collections.defaultdict(lambda: collections.defaultdict(float))
for l in open(sys.argv[1]):
    r = json.loads(l)
    by[r["interval"]][r["scope"]] += r["energy_j"]
bad = 0
for t, s in sorted(by.items()):
    for scope in sys.argv[2:]:
        if abs(s[scope] - s["system"]) > 1e-6 * max(1, s["system"]):
            print(f"FAIL  t={t}: {scope} rows {s[scope]:.9f} J != system {s['system']:.9f} J")
            bad += 1
print(f"      {len(by)} intervals, each partition adds up to the system energy" if not bad else "")
sys.exit(bad != 0)
PY
}

# attached_burn SOCKET DPID WHAT: a stat attached to the daemon DPID on
# SOCKET counts a 0.3 s burner in a cgroup of its own; two checks: it
# attached, and the cgroup's cpu-clock matches cpu.stat for the same
# window within 2% (+ steal + untraced time). Two truths: cpu-clock is
# the clock, cpu.stat the scheduler's runtime, and on a busy machine the
# clock runs ahead for a burner preempted often (0.60% in make
# test-loaded, 0.9-1.6% under two suites at once, with no steal seen)
attached_burn() {
	local sock=$1 dpid=$2 what=$3 c uc0 st0 uc steal unt
	c=$(cg_new "burn$RANDOM")
	uc0=$(cg_usage_ns "$c") st0=$(steal_ns)
	"$EMON" stat -e cpu-clock -G "$c" -j -o "$TMP/burn.jsonl" --socket "$sock" -- \
		sh -c "$(declare -f cg_run); CGROOT=$CGROOT; cg_run $c $BURN 0.3" 2>"$TMP/burn.err"
	uc=$(($(cg_usage_ns "$c") - uc0)) steal=$(($(steal_ns) - st0))
	check "$what: a stat attaches" grep -q "attached to the daemon (pid $dpid" "$TMP/burn.err"
	unt=$(untraced_ns "$TMP/burn.jsonl")
	check "$what: the cgroup vs cpu.stat within 2% (+ steal + untraced)" near_steal \
		"$(jrow "$TMP/burn.jsonl" cgroup "$c" cpu-clock)" "$uc" 2 $((steal + unt))
}

# chromium_shot HTML PNG: headless Chromium renders the page HTML (a
# file) into the screenshot PNG, 1200x1600; one check
chromium_shot() {
	local html=$1 shot=$2 rc
	HOME=$TMP timeout 90 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --hide-scrollbars \
		--user-data-dir="$(mktemp -d -p "$TMP")" --screenshot="$shot" \
		--window-size=1200,1600 "file://$html" >"$TMP/chromium.log" 2>&1
	rc=$?
	check "chromium wrote a screenshot (exit $rc)" test -s "$shot" ||
		{ tail -5 "$TMP/chromium.log"; return 1; }
}

# png_check PNG NAME:RRGGBB[:MIN]...: decode the screenshot (stdlib
# only) and count pixels: at least 50 colours, 10% of pixels off the
# background, and MIN (default 2000) pixels of each colour named (bars
# and lines of a palette colour); prints a line per check, fails if any
# fails
png_check() {
	"$PY3" - "$@" <<'EOF'
import struct, sys, zlib
from collections import Counter

data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    print("FAIL  screenshot is a PNG"); sys.exit(1)
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        interlace = body[12]
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
if depth != 8 or ctype not in (2, 6) or interlace:
    print(f"FAIL  PNG format (depth {depth}, colour type {ctype})"); sys.exit(1)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, pixels = bytearray(stride), Counter()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f in (1, 3, 4):
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            else:
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
    pixels.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
    prev = line
bg, nbg = pixels.most_common(1)[0]
other = w * h - nbg
ok = True
def check(what, cond):
    global ok
    print(("ok    " if cond else "FAIL  ") + what)
    ok &= cond
check(f"screenshot {w}x{h} has {len(pixels)} colours (want >= 50)", len(pixels) >= 50)
check(f"{100 * other / (w * h):.1f}% of pixels differ from the background #{bg.hex()} (want >= 10%)",
      other >= 0.10 * w * h)
for name, rgb, want in ((a.split(":") + ["2000"])[:3] for a in sys.argv[2:]):
    n = pixels[bytes.fromhex(rgb)]
    check(f"{name} #{rgb} bars and lines drawn: {n} pixels (want >= {want})", n >= int(want))
sys.exit(0 if ok else 1)
EOF
}

# pod_fixtures: tests/fixtures/runtimes copied to $TMP/rt, with a second
# pod of namespace kv (cache-1, its container redis, as containerd's CRI
# plugin writes it, id 44...4) beside the fixtures' own; ROOTS: the
# --runtime-root options for them. fixture_id C: a fixture's id, C x 64.
fixture_id() { printf "%064d" 0 | tr 0 "$1"; }
pod_fixtures() {
	local b4=$TMP/rt/containerd/io.containerd.runtime.v2.task/k8s.io/$(fixture_id 4)
	cp -a tests/fixtures/runtimes "$TMP/rt" && mkdir -p "$b4" || return 1
	cat >"$b4/config.json" <<'JSON'
{"ociVersion": "1.1.0", "annotations": {
 "io.kubernetes.cri.container-type": "container",
 "io.kubernetes.cri.sandbox-name": "cache-1",
 "io.kubernetes.cri.sandbox-namespace": "kv",
 "io.kubernetes.cri.container-name": "redis",
 "io.kubernetes.cri.image-name": "docker.io/library/redis:7"}}
JSON
	ROOTS=()
	for r in docker containerd cri-o podman; do ROOTS+=(--runtime-root "$r=$TMP/rt/$r"); done
}
# pod_cgroups: the fixtures' containers' cgroups, made as their runtimes
# name them, into the caller's associative array cg: cache0 and cache1
# (namespace kv's two pods, containerd's CRI plugin under the systemd
# driver), pg (CRI-O), cart (podman); the pods' uids in the fixtures are
# 0f1e2d3c-... and 1a2b3c4d-...
pod_cgroups() {
	local pods=kubepods.slice/kubepods-burstable.slice
	local uid=0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0 uid2=1a2b3c4d_5e6f_4a0b_8c1d_2e3f4a5b6c7d
	cg[cache0]=$(cg_new "$pods/kubepods-burstable-pod$uid.slice/cri-containerd-$(fixture_id 2).scope")
	cg[cache1]=$(cg_new "$pods/kubepods-burstable-pod$uid2.slice/cri-containerd-$(fixture_id 4).scope")
	cg[pg]=$(cg_new "kubepods.slice/kubepods-besteffort.slice/crio-$(fixture_id 1).scope")
	cg[cart]=$(cg_new "machine.slice/libpod-$(fixture_id 0).scope")
}

# csv_val FILE EVENT [N]: the value of EVENT on its Nth line (1: the
# first) in perf's CSV or ours: the field before the unit before the
# event's name; msec as ns
csv_val() {
	"$PY3" -c '
import csv, sys
f, ev, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [r for r in csv.reader(open(f)) if ev in r]
if len(rows) < n:
    print("missing"); sys.exit()
r = rows[n - 1]; i = r.index(ev)
v = r[i - 2] if r[i - 1] in ("msec", "") else r[i - 1]
try:
    print("%.0f" % (float(v) * (1e6 if r[i - 1] == "msec" else 1)))
except ValueError:
    print(v)' "$1" "$2" "${3:-1}"
}

# --- gated windows: perf and emon-perf side by side ------------------------
# tools/threads -g burns only while DIR/run exists: both tools count at
# once, from before the gate opens to after it closed, so what each
# counts beyond the window whose runtime the test reads (its own start and
# end, a few ms of a busy thread, which put their ratios to the runtime up
# to 3 points apart on a loaded machine) is the threads' polls for the
# gate alone (0.1 ms a second). start_threads (stat_threads.sh) or
# THREADS_PID set by the caller names the workload's pid: $WPID.

# start_threads DIR SECONDS [-x SECS] [-g] SHARE...: tools/threads in the
# background ($WPID); returns once its tids are in DIR/tids
start_threads() {
	local dir=$1 secs=$2
	shift 2
	local x=()
	[ "$1" = -x ] && x=(-x "$2") && shift 2
	local g=()
	[ "$1" = -g ] && g=(-g) && shift
	mkdir -p "$dir"
	"$TOOLS/threads" "${g[@]}" "${x[@]}" "$dir" "$secs" "$@" &
	WPID=$!
	BG_PIDS+=("$WPID")
	for _ in $(seq 500); do
		[ -s "$dir/tids" ] && return 0
		sleep 0.02
	done
	return 1
}
# gate_hold DIR NAME: the command a tool counts beside the gated workload:
# says it runs, then waits for the window's end
gate_hold() { echo "touch $1/started.$2; while [ ! -e $1/done ]; do sleep 0.01; done"; }
# gate_window DIR N SECONDS TID...: once N tools' commands run (and 0.3 s
# more: perf may enable a -p/-t target's counters after it starts the
# command), the gate open for SECONDS; each TID's runtime (of process
# $WPID) over it, from before it opened to after the threads saw it
# closed, to DIR/w ("TID START END"); then DIR/done ends the commands.
# With GATE_LOG set (a -v log), its line counts at the gate's opening and
# closing to DIR/marks (untraced_gate)
gate_window() {
	local d=$1 n=$2 s=$3 t m0
	shift 3
	for _ in $(seq 1500); do
		[ "$(find "$d" -maxdepth 1 -name 'started.*' | wc -l)" -ge "$n" ] && break
		sleep 0.02
	done
	sleep 0.3
	local -A r
	for t; do r[$t]=$(cut -d' ' -f1 "/proc/$WPID/task/$t/schedstat"); done
	[ -n "${GATE_LOG:-}" ] && m0=$(wc -l <"$GATE_LOG")
	touch "$d/run"
	sleep "$s"
	rm -f "$d/run"
	sleep 0.1	# a thread sees it within a 10 ms period
	for t; do echo "$t ${r[$t]} $(cut -d' ' -f1 "/proc/$WPID/task/$t/schedstat")" >>"$d/w"; done
	[ -n "${GATE_LOG:-}" ] && echo "$m0 $(wc -l <"$GATE_LOG")" >"$d/marks"
	touch "$d/done"
}
# gate_cmd DIR TID SECONDS [AFTER]: a command for one tool alone: after
# 0.15 s (inside the tool's first interval), the gate open for SECONDS;
# TID's runtime (of process $WPID) over it to DIR/w ("START END"); then
# AFTER s more. GATE_LOG: as gate_window's
gate_cmd() {
	local r="cut -d' ' -f1 /proc/$WPID/task/$2/schedstat" m=:
	[ -n "${GATE_LOG:-}" ] && m="wc -l <$GATE_LOG"
	echo "sleep 0.15; r0=\$($r); m0=\$($m); touch $1/run; sleep $3; rm -f $1/run; sleep 0.05
	echo \$r0 \$($r) >$1/w; echo \$m0 \$($m) >$1/marks; sleep ${4:-0}"
}
# gated_side_by_side DIR NAME TID... -- TARGET...: perf and emon-perf,
# each `stat -x , -e $EV TARGET...`, around one gated window of 1 s of
# DIR's threads (the TIDs' runtimes read); CSVs in $TMP/perf-NAME.csv and
# $TMP/emon-NAME.csv, the window in DIR/w; EMON_RC is emon-perf's exit
# status; emon-perf's -v log in $TMP/emon-NAME.err, for untraced_gate
gated_side_by_side() {
	local d=$1 n=$2 pp ep tids=()
	shift 2
	while [ "$1" != -- ]; do tids+=("$1"); shift; done
	shift
	rm -f "$d/done" "$d/w" "$d/marks" "$d"/started.*
	"$PERF" stat -x , -e $EV "$@" -- sh -c "$(gate_hold "$d" perf)" 2>"$TMP/perf-$n.csv" &
	pp=$!
	"$EMON" stat -v -x , -e $EV "$@" -o "$TMP/emon-$n.csv" -- \
		sh -c "$(gate_hold "$d" emon)" 2>"$TMP/emon-$n.err" &
	ep=$!
	GATE_LOG=$TMP/emon-$n.err gate_window "$d" 2 1 "${tids[@]}"
	wait "$ep"
	EMON_RC=$?
	wait "$pp"
}
