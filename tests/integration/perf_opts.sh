#!/usr/bin/env bash
# perf stat 6.1's options that emon-perf once refused, and perf's text in
# full, side by side with Debian's perf: each run of emon-perf and of
# perf, on the same workload (system-wide: perf as emon-perf's command, so
# both count the same window), compared line by line and field by field
# by perf_layout.py (blank lines, header, events, units, keys, metric
# units, footer; CSV fields), and the counts against what knows them:
#  - a command's text: 'seconds user' and 'seconds sys' after the elapsed
#    time and perf's trailing blank lines; cpu-clock against the same
#    run's user + sys (its rusage), in each tool;
#  - -o FILE: perf's '# started on' header (--append too); --log-fd;
#  - -r 3 -x,: RUN is the mean time the event ran (the mean cpu-clock);
#  - -a -G X: X's rows alone (text and CSV), 'system wide'; a busy
#    cgroup's task-clock within 5% of perf's over the same window;
#  - --per-node -a -x, -I: perf's lines; each node's cpu-clock its CPUs'
#    wall time in each interval within 2%;
#  - --control fifo: and -D -1: cpu-clock the CPUs' wall time over the
#    enabled span, perf's lines on stderr and its acks, <not counted>
#    for a disabled interval;
#  - -n, --no-big-num, -B, --all-user, --summary (-I, -x, --no-csv-summary),
#    --pre/--post, the options that change nothing here, --metric-only
#    without -M, :W, an event given twice, -C's header, and a command
#    that cannot run: perf's lines and status.
# sanitizer pass: its subject is perf's own output beside emon-perf's, line by line (about 60 s); stat's options are fuzzed (fuzz_stat_opts)
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"
perf stat -e cpu-clock -- true 2>/dev/null || skip "perf stat does not run here"
LAYOUT="$PY3 $(dirname "$0")/perf_layout.py"

# same KIND OPTS...: emon-perf and perf, each `stat OPTS` on its own run of
# the burner (0.2 s), their outputs in $TMP/e.KIND and $TMP/p.KIND; the
# layouts compared
same() {
	local kind=$1 what=$2
	shift 2
	"$EMON" stat "$@" 2>"$TMP/e.$kind" >"$TMP/e.out"
	ERC=$?
	perf stat "$@" 2>"$TMP/p.$kind" >"$TMP/p.out"
	PRC=$?
	check "$what: perf's lines and fields (status $ERC, perf's $PRC)" \
		bash -c "[ $ERC -eq $PRC ] && $LAYOUT $kind '$TMP/e.$kind' '$TMP/p.$kind'"
}
# val FILE EVENT: a text file's count of EVENT (msec for time events)
val() { $LAYOUT text "$1" "$1" --values | awk -v ev="$2" '$1 == "emon" && $2 == ev { print $5; exit }'; }
foot() { $LAYOUT text "$1" "$1" --values | awk -v w="$2" '$1 == "emon" && $2 == w { print $5; exit }'; }

# --- a command's text in full -------------------------------------------
EV=cpu-clock,context-switches
same text "a command's text (user, sys, blank lines)" -e $EV -- "$BURN" 0.2
for f in e p; do
	c=$(val "$TMP/$f.text" cpu-clock) u=$(foot "$TMP/$f.text" seconds_user)
	s=$(foot "$TMP/$f.text" seconds_sys)
	check "$f: cpu-clock $c ms = the run's user + sys ($u + $s s) within 10% + 4 ms (their ticks)" \
		"$PY3" -c "import sys; c, r = $c, ($u + $s) * 1e3; sys.exit(not abs(c - r) <= 0.1 * r + 4)"
done
same text "-n: the times alone" -n -- "$BURN" 0.1
same text "-n -e: counts, no blank line before the time" -n -e cpu-clock -- "$BURN" 0.1
same csv "-n -x,: nothing" -n -x, -- "$BURN" 0.1
same text "--all-user: the events' own names" --all-user -e $EV -- "$BURN" 0.1
check "--all-user: no context switch counted in user mode (both)" \
	"$PY3" -c "import sys; sys.exit(not ($(val "$TMP/e.text" context-switches) == 0 == $(val "$TMP/p.text" context-switches)))"
same text "--all-kernel" --all-kernel -e $EV -- "$BURN" 0.1
same csv "--all-user -I 100 -x," --all-user -I 100 -x, -e $EV -- sleep 0.35
same text "--all-user -r 2" --all-user -r 2 -e $EV -- "$BURN" 0.05
same text "-n -I 100: the header alone" -n -I 100 -- sleep 0.25
same text "--no-big-num -I 100" --no-big-num -I 100 -e $EV -- sleep 0.25
for o in --no-merge --scale --metric-no-group --percore-show-thread --big-num; do
	same text "$o: nothing changes here" $o -e $EV -- "$BURN" 0.1
done
same text "--metric-only without -M: perf's (empty) table" --metric-only -e $EV -- "$BURN" 0.1
"$EMON" stat --metric-only -- true 2>"$TMP/e.text"
check "--metric-only alone: perf's shadow metrics of the default events, nothing said on stderr" \
	bash -c "! grep -q emon-perf '$TMP/e.text' && grep -q 'insn per cycle' '$TMP/e.text'"
same csv "{a,b}:W and an event given twice" -x, -e "{cpu-clock,context-switches}:W,page-faults,page-faults" -- "$BURN" 0.1
same csv "cpu-clock:W keeps its name" -x, -e cpu-clock:W -- "$BURN" 0.1
"$EMON" stat -B -x, -e cpu-clock -- true 2>"$TMP/e.err"
ERC=$?
perf stat -B -x, -e cpu-clock -- true 2>"$TMP/p.err"
pl=$(head -1 "$TMP/p.err")
check "-B with -x: refused with perf's words ($(cat "$TMP/e.err"); status $ERC)" \
	[ $ERC -eq 2 -a "$(cat "$TMP/e.err")" = "emon-perf: $pl" ]
same text "a command that cannot run" -e cpu-clock -- /no/such/command
check "a command that cannot run: 255, as perf" [ "$ERC" -eq 255 ]

# --pre and --post: around the count, on stdout, before the print
"$EMON" stat --pre 'echo PRE' --post 'echo POST' -e cpu-clock -- true >"$TMP/e.out" 2>"$TMP/e.err"
perf stat --pre 'echo PRE' --post 'echo POST' -e cpu-clock -- true >"$TMP/p.out" 2>"$TMP/p.err"
check "--pre/--post: $(tr '\n' ' ' <"$TMP/e.out")as perf's" cmp -s "$TMP/e.out" "$TMP/p.out"
check "--pre/--post: the counts' lines are perf's" $LAYOUT text "$TMP/e.err" "$TMP/p.err"
"$EMON" stat -r 2 --pre 'echo PRE' --post 'echo POST' -e cpu-clock -- true >"$TMP/e.out" 2>"$TMP/e.err"
perf stat -r 2 --pre 'echo PRE' --post 'echo POST' -e cpu-clock -- true >"$TMP/p.out" 2>"$TMP/p.err"
check "--pre/--post -r 2: around each run ($(tr '\n' ' ' <"$TMP/e.out")), as perf's" cmp -s "$TMP/e.out" "$TMP/p.out"
check "--pre/--post -r 2: the counts' lines are perf's" $LAYOUT text "$TMP/e.err" "$TMP/p.err"

# -o FILE, --append, --log-fd
"$EMON" stat -o "$TMP/e.o" -e $EV -- "$BURN" 0.1
perf stat -o "$TMP/p.o" -e $EV -- "$BURN" 0.1
check "-o FILE: '# started on' and perf's lines" $LAYOUT text "$TMP/e.o" "$TMP/p.o"
check "-o FILE: the date as perf's ($(head -1 "$TMP/e.o"))" \
	grep -qE '^# started on [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$' "$TMP/e.o"
"$EMON" stat -o "$TMP/e.o" --append -x, -e $EV -- "$BURN" 0.1
perf stat -o "$TMP/p.o" --append -x, -e $EV -- "$BURN" 0.1
check "-o --append -x,: two headers" [ "$(grep -c '^# started on' "$TMP/e.o")" = 2 ]
"$EMON" stat --log-fd 3 -e $EV -- "$BURN" 0.1 3>"$TMP/e.fd" 2>"$TMP/e.err"
perf stat --log-fd 3 -e $EV -- "$BURN" 0.1 3>"$TMP/p.fd" 2>"$TMP/p.err"
check "--log-fd 3: the counts there, perf's lines, nothing on stderr" \
	bash -c "[ ! -s '$TMP/e.err' ] && $LAYOUT text '$TMP/e.fd' '$TMP/p.fd'"

same text "-r 3 text: no user and sys lines" -r 3 -e $EV -- "$BURN" 0.05
# -r 3 -x,: RUN is the mean time the events ran
same csv "-r 3 -x," -r 3 -x, -e $EV -- "$BURN" 0.1
check "-r 3 -x,: RUN of both events is the mean cpu-clock, in ns (1%)" "$PY3" -c '
import sys
rows = [l.strip().split(",") for l in open(sys.argv[1]) if "," in l]
ns = float(rows[0][0]) * 1e6
print("      ", rows)
sys.exit(not all(abs(float(r[4]) - ns) <= 0.01 * ns + 1e4 for r in rows))' "$TMP/e.csv"

# --summary: -I's intervals, then the run whole
same text "--summary -I 100" --summary -I 100 -e $EV -- sleep 0.35
same csv "--summary -I 100 -x," --summary -I 100 -x, -e $EV -- sleep 0.35
same csv "--summary --no-csv-summary -I 100 -x," --summary --no-csv-summary -I 100 -x, -e $EV -- sleep 0.35

# --control: each tool on its own run, its command saying "enable" (and
# "disable") through the fifo and noting the times; emon-perf's cpu-clock
# (-a) is the CPUs' wall time over the enabled span (measured: 806.93 ms
# for 2 x 403.15, perf 805.23 on the same test); "ack" for each command
ncpu=$(getconf _NPROCESSORS_ONLN)
for tool in emon perf; do
	rm -f "$TMP/ctl" && mkfifo "$TMP/ctl" && : >"$TMP/$tool.ack"
	bin=perf && [ $tool = emon ] && bin=$EMON
	"$bin" stat --control "fifo:$TMP/ctl,$TMP/$tool.ack" -D -1 -a -x, -e cpu-clock -o "$TMP/$tool.ctl.csv" -- \
		sh -c "sleep 0.2; date +%s.%N >$TMP/$tool.w; echo enable >$TMP/ctl; sleep 0.4
			date +%s.%N >>$TMP/$tool.w" 2>"$TMP/$tool.ctl.err"
	v=$(awk -F, '$3 == "cpu-clock" { print $1 }' "$TMP/$tool.ctl.csv")
	w=$(awk 'NR == 1 { a = $1 } NR == 2 { printf "%.3f", ($1 - a) * 1e3 }' "$TMP/$tool.w")
	# perf's is printed, not held to it: its cpu-clock timers run short
	# on a busy machine (perf_csv.sh)
	[ $tool = perf ] && echo "      perf --control fifo -D -1: cpu-clock $v ms, $ncpu CPUs x the enabled $w ms" &&
		continue
	check "$tool --control fifo -D -1: cpu-clock $v ms = $ncpu CPUs x the enabled $w ms (3% + 10 ms)" \
		"$PY3" -c "import sys; v, w = $v, $ncpu * $w; sys.exit(not abs(v - w) <= 0.03 * w + 10)"
done
check "--control: 'Events disabled', 'Events enabled' and the acks as perf's" \
	bash -c "cmp -s '$TMP/emon.ctl.err' '$TMP/perf.ctl.err' && cmp -s '$TMP/emon.ack' '$TMP/perf.ack' &&
		[ \$(grep -ac '^ack' '$TMP/emon.ack') -eq 1 ]"
check "--control -x,: perf's fields" $LAYOUT csv "$TMP/emon.ctl.csv" "$TMP/perf.ctl.csv"
for tool in emon perf; do
	rm -f "$TMP/ctl" && mkfifo "$TMP/ctl"
	bin=perf && [ $tool = emon ] && bin=$EMON
	"$bin" stat --control "fifo:$TMP/ctl" -a -I 100 -e cpu-clock -o "$TMP/$tool.ctl.txt" -- \
		sh -c "sleep 0.15; echo disable >$TMP/ctl; sleep 0.35; echo enable >$TMP/ctl; sleep 0.2" \
		2>"$TMP/$tool.ctl.err"
done
check "--control -I 100, 0.35 s disabled: an interval <not counted>, as perf's" \
	bash -c "grep -q '<not counted> msec cpu-clock' '$TMP/emon.ctl.txt' && grep -q '<not counted> msec cpu-clock' '$TMP/perf.ctl.txt'"
check "--control -I 100: perf's lines on stderr" cmp -s "$TMP/emon.ctl.err" "$TMP/perf.ctl.err"
"$EMON" stat --control fifo:/no/such/fifo -e cpu-clock -- true 2>"$TMP/e.err"
rc=$?
check "--control of a missing fifo: exit 2 (got $rc), one line, perf's words: $(cat "$TMP/e.err")" \
	bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$TMP/e.err') -eq 1 ] &&
		grep -q \"^emon-perf: Failed to open '/no/such/fifo'\" '$TMP/e.err'"

# --- system-wide: perf is emon-perf's command, the same window -----------
side() { # KIND OPTS...: emon-perf OPTS -- perf stat OPTS -- sleep 1
	local kind=$1
	shift
	"$EMON" stat "$@" -o "$TMP/e.$kind" -- perf stat "$@" -o "$TMP/p.$kind" -- sleep 1.05
}
side text -a --no-big-num -e $EV
check "--no-big-num -a: perf's lines, counts without separators" $LAYOUT text "$TMP/e.text" "$TMP/p.text"
side text -a -B -e $EV
check "-B -a: perf's lines, with separators" $LAYOUT text "$TMP/e.text" "$TMP/p.text"
side text -C 0 -e cpu-clock
check "-C 0: perf's header ('CPU(s) 0') and lines" $LAYOUT text "$TMP/e.text" "$TMP/p.text"
# perf's aggregations in text: the aggregation leads the line, -I's
# header names it (--per-thread's rows are the machine's threads: the
# layout alone, one run)
for mode in -A --per-socket --per-die --per-core --per-node; do
	side text -a $mode -e $EV
	check "$mode -a text: perf's lines and fields" $LAYOUT text "$TMP/e.text" "$TMP/p.text"
	side text -a $mode -I 250 -e $EV
	check "$mode -a -I 250 text: perf's lines, fields and header" $LAYOUT text "$TMP/e.text" "$TMP/p.text" --outer
done
"$EMON" stat -a --per-thread -I 100 -e cpu-clock -o "$TMP/e.text" -- sleep 0.15
check "--per-thread -I text: perf's header, COMM-TID leading each line" \
	bash -c "grep -qx '#           time             comm-pid                  counts unit events' '$TMP/e.text' &&
		grep -qE '^ +[0-9.]+ +[^ ].*-[0-9]+ +[0-9.]+ msec cpu-clock ' '$TMP/e.text'"
side csv --per-node -a -x, -I 250 -e $EV
check "--per-node -a -x, -I 250: perf's lines and fields" $LAYOUT csv "$TMP/e.csv" "$TMP/p.csv" --outer
check "--per-node: each interval's cpu-clock the node's CPUs times its wall time (2%)" "$PY3" -c '
import sys
rows = [l.strip().split(",") for l in open(sys.argv[1]) if l[:1] == " " and ",cpu-clock," in l]
prev, bad = 0.0, 0
for r in rows:
    t, n, v = float(r[0]), int(r[2]), float(r[3])
    wall = (t - prev) * 1e3
    print(f"      {r[1]} {t:.3f} s: {v:.2f} msec on {n} CPUs, wall {wall:.2f} ms")
    bad += abs(v / n - wall) > 0.02 * wall
    prev = t
sys.exit(bad or not rows)' "$TMP/e.csv"

# -a -G X: X's rows alone. Its thread (tools/threads -g, 100%) burns
# only while the gate is open, 0.5 s inside perf's command, which both
# tools' windows hold whole: the same count (perf_csv.sh's way)
c=$(cg_new busy)
mkdir -p "$TMP/gate"
cg_bg "$c" "$TOOLS/threads" -g "$TMP/gate" 60 100
# (perf -G's cgroups go to -e's events one by one: one each, as
# perf_csv.sh; emon-perf's one name goes to every event, as perf's one
# would: perf_cgroups.sh)
for kind in text csv; do
	x=() && [ $kind = csv ] && x=(-x,)
	ev=(-a "${x[@]}" -e task-clock,context-switches)
	st0=$(steal_ns)
	"$EMON" stat -v "${ev[@]}" -G "$c" -o "$TMP/e.$kind" -- \
		perf stat "${ev[@]}" -G "$c,$c" -o "$TMP/p.$kind" -- \
		sh -c "sleep 0.2; m0=\$(wc -l <$TMP/err); touch $TMP/gate/run; sleep 0.5
			rm -f $TMP/gate/run; sleep 0.05; echo \$m0 \$(wc -l <$TMP/err) >$TMP/gate/marks; sleep 0.1" \
		2>"$TMP/err"
	steal=$(( $(steal_ns) - st0 )) unt=$(untraced_gate "$TMP/gate" "$TMP/err")
	check "-a -G $c ($kind): perf's lines, fields and header" $LAYOUT $kind "$TMP/e.$kind" "$TMP/p.$kind"
done
check "-a -G -x,: every line is the cgroup's" bash -c "[ \$(grep -vc ',$c,' '$TMP/e.csv') -eq 2 ]"
e=$(awk -F, '$3 == "task-clock" { printf "%.0f", $1 * 1e6 }' "$TMP/e.csv")
p=$(awk -F, '$3 == "task-clock" { printf "%.0f", $1 * 1e6 }' "$TMP/p.csv")
check "-a -G: the busy cgroup's task-clock within 2% of perf's over the same gated window (+ steal + untraced)" \
	near_steal "$e" "$p" 2 $((steal + unt))
"$EMON" stat -a --by system,cgroup -x, -e task-clock -G "$c" -o "$TMP/e2.csv" -- sleep 0.2
check "--by system,cgroup -G: the system row too" [ "$(grep -c '^[0-9.]*,msec,task-clock,[0-9]' "$TMP/e2.csv")" -eq 1 ]
finish
