#!/usr/bin/env bash
# stat record / stat report with perf.data (issue 31, item 6), side by
# side with Debian's perf on the same files:
#  - a command's record, with and without -I: perf stat report -i prints
#    the counts emon-perf printed for that run (-x, on its stderr), event
#    for event and interval for interval; stat report -x, prints
#    emon-perf's own lines again, field for field; the command's
#    task-clock is its own CPU time (getrusage, read by the command
#    before it exits; + 5% + 30 ms for its start and exit);
#  - a system-wide record (-a -I, and -A): the same with perf's report,
#    and each interval's cpu-clock is the CPUs' wall time of its window
#    (within 2%: the switch-derived clock covers each CPU's whole window);
#  - perf's aggregations: --per-core -I recorded (the same, a core's
#    CPUs' wall time), and -A's file reported --per-socket/die/core/node
#    by both: the sums of its CPUs' counts by sysfs' topology; perf's own
#    --per-socket file, and its --per-core;
#  - -G A,B -I over three events (perf's pairs, one of no cgroup), a
#    burner in A: the same with perf's report (no cgroup names in its
#    file), B <not counted>, A's cpu-clock under its cpu.stat growth;
#  - -p, -p --per-thread and -t -I of a process of two threads: the same
#    with perf's report, the thread rows the process's threads, each
#    task-clock at most its threads' schedstat runtime's growth;
#  - perf stat record's own files (a command's, -a -I, -G): stat report
#    prints perf stat report's counts, and the command's task-clock
#    against its getrusage again;
#  - the default file name perf.data, kept as perf.data.old by the next;
#  - a truncated or foreign file: one line naming it, exit 2; what stat
#    record refuses (-G with -A, -r, --per-socket without -a, two
#    aggregations, -a --per-thread).
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"
perf stat -e task-clock -o /dev/null -- true 2>/dev/null || skip "perf stat does not run here"
NCPU=$(nproc)

# a command burning SEC seconds of CPU that prints its own CPU time (ns)
burner() {
	echo "$PY3" -c "'import resource, time
t = time.process_time()
while time.process_time() - t < $1: pass
r = resource.getrusage(resource.RUSAGE_SELF)
print(int((r.ru_utime + r.ru_stime) * 1e9))'"
}

# counts FILE KIND: "TIME|CPU|EVENT VALUE" lines of emon-perf's CSV
# (KIND csv) or of perf stat report's text (KIND text); values without
# perf's thousands' commas
counts() {
	"$PY3" - "$1" "$2" <<'PY'
import re, sys
path, kind = sys.argv[1], sys.argv[2]
AGG = r"S\d+(?:-D\d+(?:-C\d+)?)?|N\d+"
THR = r"[^\s,]+-\d+"		# --per-thread's COMM-TID
for l in open(path):
	l = l.rstrip("\n")
	if not l.strip() or l.lstrip().startswith("#"):
		continue
	if kind == "csv":
		f = [x.strip() for x in l.split(",")]
		# [time,][CPUn,|S0-D0,NR,]value,unit,event,...: 7 fields, + the
		# time with -I, + the CPU with -A, + 2 with --per-*
		a = 1 if any(x.startswith("CPU") or re.fullmatch(THR, x) for x in f[:2]) else \
			2 if any(re.fullmatch(AGG, x) for x in f[:2]) else 0
		t = f[0] if len(f) == 8 + a else ""
		i = bool(t)
		cpu = f[i] if a == 1 else f"{f[i]}/{f[i + 1]}" if a == 2 else ""
		i += a
		print(f"{t}|{cpu}|{f[i + 2]} {f[i].replace(',', '')}")
		continue
	m = re.match(r"\s*(\d+\.\d+\s+)?(CPU\d+\s+|(?:" + AGG + r")\s+\d+\s+|" + THR + r"\s+)?(<not counted>|<not supported>|[\d,]+(?:\.\d+)?)\s+(?:msec\s+)?(\S+)(\s+CPU\d+)?", l)
	if not m or m.group(4) == "seconds":
		continue
	t = (m.group(1) or "").strip()
	cpu = "/".join((m.group(2) or m.group(5) or "").split())
	print(f"{t}|{cpu}|{m.group(4)} {m.group(3).replace(',', '')}")
PY
}

# same A B WHAT: the two lists of counts are the same, and not empty
same() {
	local n
	n=$(wc -l <"$1")
	check "$3: the same $n counts" [ "$n" -gt 0 ] &&
		check "$3: none differs" diff "$1" "$2"
}

# same_csv A B: emon-perf's CSV lines, field for field; RUN (the 4th
# field from the end) within a ns a CPU: emon-perf's is the interval
# times the row's CPUs, the file's the sum of each CPU's, rounded
same_csv() {
	"$PY3" - "$1" "$2" "$NCPU" <<'PY'
import sys
a = [l.rstrip("\n").split(",") for l in open(sys.argv[1]) if "," in l]
b = [l.rstrip("\n").split(",") for l in open(sys.argv[2]) if "," in l]
bad = len(a) != len(b) or not a
for x, y in zip(a, b):
	if len(x) != len(y) or x[:-4] != y[:-4] or x[-3:] != y[-3:] or \
	   abs(float(x[-4] or 0) - float(y[-4] or 0)) > int(sys.argv[3]):
		print(f"      {','.join(x)}\n   vs {','.join(y)}")
		bad = True
sys.exit(bad)
PY
}

# beside_perf TAG WHAT [sort]: Debian's perf stat report of $TMP/TAG.data
# against emon-perf's own -x output of the run ($TMP/TAG.emon): the same
# counts (in $TMP/TAG.e and .p, sorted with "sort": perf's thread order
# is not stat's)
beside_perf() {
	local t=$1 order=cat
	[ "${3:-}" = sort ] && order=sort
	perf stat report -i "$TMP/$t.data" 2>"$TMP/$t.perf" >&2
	counts "$TMP/$t.emon" csv | $order >"$TMP/$t.e"
	counts "$TMP/$t.perf" text | $order >"$TMP/$t.p"
	same "$TMP/$t.e" "$TMP/$t.p" "$2: perf stat report -i and emon-perf's own text"
}
# own_report TAG WHAT: emon-perf's stat report -x, of $TMP/TAG.data prints
# the run's own -x lines
own_report() {
	"$EMON" stat report -x, -i "$TMP/$1.data" 2>"$TMP/$1.rep"
	check "$2: stat report -x, prints emon-perf's own lines ($(grep -c , "$TMP/$1.rep"))" \
		same_csv "$TMP/$1.emon" "$TMP/$1.rep"
}
# perf_file TAG WHAT: a perf stat record file, $TMP/TAG.data: emon-perf's
# stat report -i prints perf stat report -i's counts ($TMP/TAG.e, .p)
perf_file() {
	perf stat report -i "$TMP/$1.data" 2>"$TMP/$1.perf" >&2
	"$EMON" stat report -i "$TMP/$1.data" 2>"$TMP/$1.rep"
	counts "$TMP/$1.perf" text >"$TMP/$1.p"
	counts "$TMP/$1.rep" text >"$TMP/$1.e"
	same "$TMP/$1.e" "$TMP/$1.p" "$2: stat report -i and perf stat report -i"
}

# field FILE EVENT: the sum of EVENT's values (ms for a clock) in FILE
# (counts' lines)
field() { awk -v e="$2" '{ split($1, k, "|"); if (k[3] == e) s += $2 } END { printf "%.6f\n", s }' "$1"; }

# 1. a command, without and with -I
for iv in "" "-I 100"; do
	name="command${iv:+ -I}"
	# shellcheck disable=SC2046
	eval "\"$EMON\" stat record -o \"$TMP/c.data\" -x, -e task-clock,context-switches $iv -- $(burner 0.4)" \
		>"$TMP/c.out" 2>"$TMP/c.emon"
	check "$name: stat record exits 0 and writes $TMP/c.data" [ -s "$TMP/c.data" ]
	beside_perf c "$name"
	own_report c "$name"
	tc=$(field "$TMP/c.e" task-clock)
	check "$name: task-clock $tc ms, the command's getrusage $(cat "$TMP/c.out") ns" \
		near_plus "$(awk -v t="$tc" 'BEGIN { printf "%.0f", t * 1e6 }')" "$(cat "$TMP/c.out")" 5 30e6
done

# 2. system-wide: -a -I, and -A
"$EMON" stat record -o "$TMP/a.data" -x, -e cpu-clock,context-switches -a -I 200 -- sleep 1 2>"$TMP/a.emon"
beside_perf a "-a -I 200"
own_report a "-a -I 200"
check "-a -I 200: each interval's cpu-clock is $NCPU CPUs' wall time of it (2%)" "$PY3" - "$TMP/a.e" "$NCPU" <<'PY'
import sys
prev, bad, n = 0.0, 0, 0
for l in open(sys.argv[1]):
	key, v = l.split()
	t, _, ev = key.split("|")
	if ev != "cpu-clock":
		continue
	t, v = float(t), float(v)
	want = (t - prev) * 1e3 * int(sys.argv[2])
	ok = abs(v - want) <= 0.02 * want
	print(f"      {t:.3f}: {v:.2f} ms, {want:.2f} wall{'' if ok else '  <-'}")
	bad += not ok
	n += 1
	prev = t
sys.exit(bad or n < 4)
PY
"$EMON" stat record -o "$TMP/A.data" -x, -e cpu-clock,context-switches -a -A -- sleep 0.3 2>"$TMP/A.emon"
perf stat report -i "$TMP/A.data" 2>"$TMP/A.perf" >&2
counts "$TMP/A.emon" csv >"$TMP/A.e"
counts "$TMP/A.perf" text >"$TMP/A.p"
same "$TMP/A.e" "$TMP/A.p" "-A: perf stat report -i and emon-perf's own text, CPU for CPU"
check "-A: a line per CPU per event ($(wc -l <"$TMP/A.e"))" [ "$(wc -l <"$TMP/A.e")" -eq $((2 * NCPU)) ]

# 2b. perf's aggregations: recorded with --per-core -I (its rows printed,
# each interval's cpu-clock its CPUs' wall time), and the -A file
# aggregated at report time by perf stat report's and stat report's
# --per-socket/die/core/node: the sums of -A's CPU counts, grouped by
# sysfs' topology here
"$EMON" stat record -o "$TMP/s.data" -x, -e cpu-clock,context-switches -a --per-core -I 200 -- sleep 0.7 2>"$TMP/s.emon"
beside_perf s "--per-core -I 200"
own_report s "--per-core -I 200"
check "--per-core -I 200: each interval's cpu-clock of a core is its CPUs' wall time (2%)" "$PY3" - "$TMP/s.e" <<'PY'
import sys
prev, bad, n = {}, 0, 0
for l in open(sys.argv[1]):
	key, v = l.split()
	t, core, ev = key.split("|")
	if ev != "cpu-clock":
		continue
	t, v, nr = float(t), float(v), int(core.split("/")[1])
	want = (t - prev.get(core, 0.0)) * 1e3 * nr
	ok = abs(v - want) <= 0.02 * want
	print(f"      {t:.3f} {core}: {v:.2f} ms, {want:.2f} wall{'' if ok else '  <-'}")
	bad += not ok
	n += 1
	prev[core] = t
sys.exit(bad or n < 4)
PY
# the groups of sysfs' topology: "S0", "S0-D0", "S0-D0-C0", "N0" of each CPU
topo() {
	"$PY3" - "$1" <<'PY'
import glob, os, sys
for d in sorted(glob.glob("/sys/devices/system/cpu/cpu[0-9]*/topology")):
	cpu = int(d.split("/")[-2][3:])
	rd = lambda n: int(open(f"{d}/{n}").read()) if os.path.exists(f"{d}/{n}") else 0
	s, di, c = rd("physical_package_id"), rd("die_id"), rd("core_id")
	node = [x for x in os.listdir(os.path.dirname(d)) if x.startswith("node")]
	g = {"--per-socket": f"S{s}", "--per-die": f"S{s}-D{di}",
	     "--per-core": f"S{s}-D{di}-C{c}",
	     "--per-node": f"N{node[0][4:] if node else 0}"}[sys.argv[1]]
	print(f"CPU{cpu} {g}")
PY
}
for agg in --per-socket --per-die --per-core --per-node; do
	perf stat report $agg -i "$TMP/A.data" 2>"$TMP/Ag.perf" >&2
	"$EMON" stat report $agg -i "$TMP/A.data" 2>"$TMP/Ag.rep"
	counts "$TMP/Ag.perf" text >"$TMP/Ag.p"
	counts "$TMP/Ag.rep" text >"$TMP/Ag.e"
	same "$TMP/Ag.e" "$TMP/Ag.p" "-A's file, $agg: stat report and perf stat report"
	topo "$agg" >"$TMP/Ag.topo"
	check "-A's file, $agg: the sums of -A's CPU counts by sysfs' topology" \
		"$PY3" - "$TMP/A.e" "$TMP/Ag.topo" "$TMP/Ag.e" <<'PY'
import sys
grp = dict(l.split() for l in open(sys.argv[2]))
want, nr = {}, {}
for l in open(sys.argv[1]):
	key, v = l.split()
	_, cpu, ev = key.split("|")
	k = (grp[cpu], ev)
	want[k] = want.get(k, 0.0) + float(v)
	nr[k] = nr.get(k, 0) + 1
got = {}
for l in open(sys.argv[3]):
	key, v = l.split()
	_, g, ev = key.split("|")
	name, n = g.split("/")
	got[(name, ev)] = float(v)
	# the CPUs' printed values, each rounded to 0.01
	ok = (name, ev) in want and int(n) == nr[(name, ev)] and \
		abs(float(v) - want[(name, ev)]) <= 0.006 * int(n) + 1e-9
	print(f"      {name} {ev}: {v} of {n} CPUs, the CPUs' {want.get((name, ev))}{'' if ok else '  <-'}")
	if not ok:
		sys.exit(1)
sys.exit(set(got) != set(want))
PY
done
# perf's own --per-socket record, and its --per-core at report time
perf stat record -o "$TMP/ps.data" -e cpu-clock,context-switches -a --per-socket -- sleep 0.3 2>/dev/null
for agg in "" --per-core; do
	perf stat report $agg -i "$TMP/ps.data" 2>"$TMP/ps.perf" >&2
	"$EMON" stat report $agg -i "$TMP/ps.data" 2>"$TMP/ps.rep"
	counts "$TMP/ps.perf" text >"$TMP/ps.p"
	counts "$TMP/ps.rep" text >"$TMP/ps.e"
	same "$TMP/ps.e" "$TMP/ps.p" "perf stat record --per-socket${agg:+, report $agg}: stat report and perf stat report"
done

# 2c. -p, -t and --per-thread: a process of two threads that burn (one
# CPU between them, Python's lock); perf stat report of each file prints
# emon-perf's counts, --per-thread's rows are the process's threads, and
# each count is at most the CPU time its threads' schedstat grew by
# across the record (+ 2 ms)
"$PY3" -c 'import threading, time
def b():
	t = time.time()
	while time.time() - t < 8: pass
ts = [threading.Thread(target=b) for _ in range(2)]
[x.start() for x in ts]
[x.join() for x in ts]' &
TP=$!
BG_PIDS+=("$TP")
for _ in $(seq 50); do [ "$(ls "/proc/$TP/task" 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.02; done
# runtimes FILE: "TID ns" of each of TP's threads (schedstat's runtime)
runtimes() { for t in $(ls "/proc/$TP/task" | sort -n); do echo "$t $(cut -d' ' -f1 "/proc/$TP/task/$t/schedstat")"; done >"$1"; }
# at_most COUNTS BEFORE AFTER [TID]: each thread's task-clock (the sum
# of the file's, with no thread in the key) <= its runtime's growth + 2 ms
at_most() {
	"$PY3" - "$@" <<'PY'
import sys
b = dict(map(int, l.split()) for l in open(sys.argv[2]))
a = dict(map(int, l.split()) for l in open(sys.argv[3]))
grow = {t: a[t] - b[t] for t in a if t in b}
only = int(sys.argv[4]) if len(sys.argv) > 4 else None
tc, bad = {}, 0
for l in open(sys.argv[1]):
	key, v = l.split(None, 1)
	_, thr, ev = key.split("|")
	if ev == "task-clock" and not v.startswith("<"):
		t = int(thr.rsplit("-", 1)[1]) if thr else only
		tc[t] = tc.get(t, 0.0) + float(v) * 1e6
for t, ns in tc.items():
	want = sum(grow.values()) if t is None else grow.get(t, 0)
	ok = ns <= want + 2e6
	print(f"      {t or 'all'}: task-clock {ns / 1e6:.2f} ms, runtime grew {want / 1e6:.2f} ms{'' if ok else '  <-'}")
	bad += not ok
sys.exit(bad or not tc)
PY
}
runtimes "$TMP/rt.0"
"$EMON" stat record -o "$TMP/pt.data" -x, -e task-clock,context-switches -p "$TP" --per-thread -- sleep 0.5 2>"$TMP/pt.emon"
runtimes "$TMP/rt.1"
beside_perf pt "-p --per-thread" sort
own_report pt "-p --per-thread"
check "-p --per-thread: its rows are the process's threads ($(cut -d' ' -f1 "$TMP/rt.1" | tr '\n' ' '))" \
	[ "$(sed 's/.*-\([0-9]*\)|.*/\1/' "$TMP/pt.e" | sort -nu)" = "$(cut -d' ' -f1 "$TMP/rt.1")" ]
check "-p --per-thread: each thread's task-clock within its runtime's growth" \
	at_most "$TMP/pt.e" "$TMP/rt.0" "$TMP/rt.1"
runtimes "$TMP/rt.0"
"$EMON" stat record -o "$TMP/pp.data" -x, -e task-clock,context-switches -p "$TP" -- sleep 0.4 2>"$TMP/pp.emon"
runtimes "$TMP/rt.1"
beside_perf pp "-p"
check "-p: task-clock within the threads' runtimes' growth" at_most "$TMP/pp.e" "$TMP/rt.0" "$TMP/rt.1"
TT=$(tail -1 "$TMP/rt.1" | cut -d' ' -f1)
runtimes "$TMP/rt.0"
"$EMON" stat record -o "$TMP/tt.data" -x, -e task-clock,context-switches -t "$TT" -I 200 -- sleep 0.5 2>"$TMP/tt.emon"
runtimes "$TMP/rt.1"
beside_perf tt "-t $TT -I 200"
check "-t $TT: its intervals' task-clock within its runtime's growth" \
	at_most "$TMP/tt.e" "$TMP/rt.0" "$TMP/rt.1" "$TT"
kill "$TP" 2>/dev/null

# 2d. -G A,B over three events, -I 200: A's cpu-clock, B's context
# switches, page-faults of no cgroup (system-wide), as perf's pairs; a
# burner in A, B idle. perf stat report prints emon-perf's counts (with
# no cgroup: its file names none), B's <not counted>; A's cpu-clock at
# most A's cpu.stat growth across the record (+ 2 ms)
GA=$(cg_new rec_a)
GB=$(cg_new rec_b)
cg_burners 3 "$GA"
burners_joined "$GA"
u0=$(cg_usage_ns "$GA")
"$EMON" stat record -o "$TMP/g2.data" -e cpu-clock,context-switches,page-faults -G "$GA,$GB" -I 200 -- sleep 0.5 2>"$TMP/g2.emon"
u1=$(cg_usage_ns "$GA")
perf stat report -i "$TMP/g2.data" 2>"$TMP/g2.perf" >&2
"$EMON" stat report -i "$TMP/g2.data" 2>"$TMP/g2.rep"
counts "$TMP/g2.emon" text >"$TMP/g2.e"
counts "$TMP/g2.perf" text >"$TMP/g2.p"
counts "$TMP/g2.rep" text >"$TMP/g2.r"
same "$TMP/g2.e" "$TMP/g2.p" "-G A,B -I 200: perf stat report -i and emon-perf's own text"
same "$TMP/g2.r" "$TMP/g2.p" "-G A,B -I 200: stat report -i and perf stat report -i"
check "-G A,B: B's context switches <not counted> each interval" \
	bash -c '! grep "context-switches" "$1" | grep -qv "<not counted>"' _ "$TMP/g2.e"
check "-G A,B: A's cpu-clock $(field "$TMP/g2.e" cpu-clock) ms, at most its cpu.stat growth $(((u1 - u0) / 1000000)) ms + 2" \
	awk -v c="$(field "$TMP/g2.e" cpu-clock)" -v u=$((u1 - u0)) 'BEGIN { exit !(c > 0 && c * 1e6 <= u + 2e6) }'
kill "${BURNERS[@]}" 2>/dev/null

# 3. perf stat record's own files
eval "perf stat record -o \"$TMP/p.data\" -e task-clock,context-switches -- $(burner 0.3)" \
	>"$TMP/p.out" 2>/dev/null
perf_file p "perf stat record's command"
tc=$(field "$TMP/p.e" task-clock)
check "perf's record: task-clock $tc ms, the command's getrusage $(cat "$TMP/p.out") ns" \
	near_plus "$(awk -v t="$tc" 'BEGIN { printf "%.0f", t * 1e6 }')" "$(cat "$TMP/p.out")" 5 30e6
perf stat record -o "$TMP/pi.data" -e cpu-clock,context-switches -a -I 200 -- sleep 0.7 2>/dev/null
perf_file pi "perf stat record -a -I 200"

# perf's -G (its file names no cgroup): a cgroup with a burner, one
# that never runs (perf's <not counted>: no enabled time either)
cg_burners 0.4 "$GA"
burners_joined "$GA"
perf stat record -o "$TMP/pg.data" -e cpu-clock,cpu-clock -a -G "$GA,$GB" -- sleep 0.3 2>/dev/null
perf_file pg "perf stat record -G A,B"
check "  B's <not counted>" grep -q "<not counted>" "$TMP/pg.e"
# the target of -p, as stat's header (process id 'PID')
"$EMON" stat report -i "$TMP/pp.data" 2>"$TMP/pp.txt"
check "-p: stat report's header names process id '$TP'" grep -qF "process id '$TP'" "$TMP/pp.txt"

# 4. the default name, as perf's
mkdir -p "$TMP/d"
(cd "$TMP/d" && "$EMON" stat record -e cpu-clock -a -- true 2>/dev/null &&
	"$EMON" stat record -e cpu-clock -a -- true 2>/dev/null)
check "no -o: perf.data, the one before kept as perf.data.old" \
	[ -s "$TMP/d/perf.data" ] && check "  and perf.data.old" [ -s "$TMP/d/perf.data.old" ]
check "perf stat report reads it" perf stat report -i "$TMP/d/perf.data"

# --append: perf 6.1 takes it and writes its file anew, and so does this
aprc=
for i in 1 2; do
	"$EMON" stat record -o "$TMP/ap.data" --append -e cpu-clock -a -- true 2>/dev/null
	aprc="$aprc$? "
done
check "stat record --append, twice: exit 0 both ($aprc)" [ "$aprc" = "0 0 " ]
check "  the file is the last run's alone, as perf's: one cpu-clock count in perf stat report" \
	[ "$(perf stat report -i "$TMP/ap.data" 2>&1 | grep -cE '^ +[0-9.]+ msec cpu-clock')" -eq 1 ]

# 5. bad input
head -c 300 "$TMP/a.data" >"$TMP/cut.data"
head -c 4096 /dev/urandom >"$TMP/junk.data"
for f in "$TMP/cut.data" "$TMP/junk.data" "$TMP/none.data"; do
	"$EMON" stat report -i "$f" 2>"$TMP/bad.err"
	rc=$?
	check "stat report -i ${f##*/}: exit 2 ($rc), one line naming it: $(cat "$TMP/bad.err")" \
		bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -qF "$3" "$2"' _ "$rc" "$TMP/bad.err" "$f"
done
for args in "-G / -a -A" "--per-socket" "-a -A --per-core" "-r 2" "-a --per-thread"; do
	# shellcheck disable=SC2086
	"$EMON" stat record -o "$TMP/g.data" $args -- true 2>"$TMP/bad.err"
	rc=$?
	check "stat record $args: exit 2 ($rc), one line, no file: $(cat "$TMP/bad.err")" \
		bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] && [ ! -e "$3" ]' _ "$rc" "$TMP/bad.err" "$TMP/g.data"
done
finish
