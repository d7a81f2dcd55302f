#!/usr/bin/env bash
# Processes that move themselves between cgroups while they run, as
# cgexec and `echo $$ > cgroup.procs` do: six shells start in P, each
# writes itself into P/A, spins there, writes itself into P/B and execs a
# burner. Several writers at once: one's write often finds another already
# through the RCU sync, so it moves without sleeping, in mid-slice.
#  - -G P, A, B: cpu-clock matches perf stat --for-each-cgroup (its
#    task-clock: PERF_TIME in lib.sh) on the same run within 1% (+ its
#    part of the steal, + untraced time): a slice is counted up to the
#    move in the cgroup the task left (the cgroup_attach_task hook), not
#    wholly in the one it went to;
#  - context-switches match perf within 1% or 3, whichever is more: a
#    switch is counted for the task that goes out (perf's rule), so a task
#    that arrived in B by moving, not by a switch, is not a switch short
#    there; perf runs as emon-perf's command, so emon-perf's window holds
#    perf's and its edges (a loaded machine gave 754 vs 750 in P, +2 in A
#    and in B: a few switches, never a proportion);
#  - P holds the workload's CPU time as its shell's `times` gives it (the
#    shell and all its children, at least 6 x 0.15 s), 5% + steal.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf not installed"

# within A B N: integers A and B differ by at most N
within() {
	[[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && [ $(($1 > $2 ? $1 - $2 : $2 - $1)) -le "$3" ]
}

P=$(cg_new P) A=$(cg_new P/A) B=$(cg_new P/B)
n=6 secs=0.15
cat >"$TMP/work.sh" <<EOF
echo \$\$ >$CGROOT$P/cgroup.procs || exit 1
for k in \$(seq $n); do
	sh -c 'echo \$\$ >$CGROOT$A/cgroup.procs || exit 1
i=0; while [ \$i -lt 20000 ]; do i=\$((i + 1)); done
echo \$\$ >$CGROOT$B/cgroup.procs || exit 1
exec $BURN $secs' &
done
wait
times >$TMP/times	# CPU time of this shell and of its children: all of P
EOF
st0=$(steal_ns)
"$EMON" stat -a --energy none -e cpu-clock,context-switches -G "$P,$A,$B" --json-rows -o "$TMP/e.jsonl" -- \
	perf stat -a -x, -e $PERF_TIME,context-switches \
	--for-each-cgroup "${P#/},${A#/},${B#/}" -o "$TMP/perf.csv" -- \
	bash "$TMP/work.sh" 2>"$TMP/err"
rc=$?
steal=$(($(steal_ns) - st0))
unt=$(untraced_ns "$TMP/e.jsonl")	# time whose owner emon-perf estimated (lib.sh)
check "exits 0" [ $rc -eq 0 ]
check "nothing on stderr" [ ! -s "$TMP/err" ]
sed 's/^/      | /' "$TMP/err" | head -5

sys=$(jrow "$TMP/e.jsonl" system all cpu-clock)
for g in "$P" "$A" "$B"; do
	e=$(jrow "$TMP/e.jsonl" cgroup "$g" cpu-clock) p=$(perf_cg "$TMP/perf.csv" "$PERF_TIME" "$g")
	# in a QEMU TCG guest (tests/vm/guest.sh), perf's cgroup switch and
	# emon-perf's tracepoint read their clocks tens of us apart: 20 us a
	# switch more (6.1's guest: 2.8 ms in 162 switches, 1.14% of 242 ms)
	cs=$(perf_cg "$TMP/perf.csv" context-switches "$g")
	vm_slack=$(( ${EMON_VM_GUEST:+1}0 > 0 ? ${cs:-0} * 20000 : 0 ))
	check "-G $g: cpu-clock matches perf within 1% (+ its part of the steal, + untraced time${EMON_VM_GUEST:+, + 20 us a switch in a TCG guest})" \
		near_steal "$e" "$p" 1 "$(( $(steal_part "$steal" "$e" "$sys") + unt + vm_slack ))"
	e=$(jrow "$TMP/e.jsonl" cgroup "$g" context-switches)
	p=$(perf_cg "$TMP/perf.csv" context-switches "$g")
	echo "      $g context-switches: emon-perf $e, perf $p"
	tol=$(( p / 100 > 3 ? p / 100 : 3 ))
	check "-G $g: context-switches match perf within 1% or 3 (here $tol)" within "$e" "$p" "$tol"
done
e=$(jrow "$TMP/e.jsonl" cgroup "$P" cpu-clock)
known=$("$PY3" -c '
import re, sys
t = re.findall(r"(\d+)m([\d.]+)s", open(sys.argv[1]).read())
print(round(sum(int(m) * 60 + float(s) for m, s in t) * 1e9))' "$TMP/times")
echo "      the workload's CPU time (times: the shell and its children): $known ns"
check "-G $P: holds the workload's known CPU time, at least $n x $secs s (5% + steal)" \
	[ "$known" -ge "$(echo "$n * $secs * 1000000000 / 1" | bc)" ]
check "-G $P: cpu-clock matches the workload's known CPU time (5% + steal)" \
	near_steal "$e" "$known" 5 "$((steal + unt))"
finish
