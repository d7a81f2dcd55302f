#!/usr/bin/env bash
# Two cgroups, one and two CPU burners: each cgroup's cpu-clock from
# emon-perf -G must match the kernel's cpu.stat usage (within 1%), and so
# must their shares (1%). cpu-clock is wall time on a CPU while the
# scheduler's CPU time leaves out what a hypervisor takes: in a VM the
# absolute values may differ by a few percent (perf stat's task-clock shows
# the same gap against a burner's own CPU time), so the absolute check
# allows 3% plus the reported steal, and the share, which that noise hits
# alike, 1%.
. "$(dirname "$0")/lib.sh"

# cg_run, and the CPU time the process had used when it joined (its
# schedstat's first field, read by the shell itself: no fork) appended
# to FILE: a burner's 1.0 s of CPU time includes it
cg_run_noted() {
	local cg=$1 file=$2
	shift 2
	sh -c 'echo $$ >"$0/cgroup.procs" && read -r t _ </proc/self/schedstat &&
		echo "$t" >>"$1" && shift && exec "$@"' "$CGROOT$cg" "$file" "$@"
}

a=$(cg_new a) b=$(cg_new b)
ua0=$(cg_usage_ns "$a") ub0=$(cg_usage_ns "$b") st0=$(steal_ns)
"$EMON" stat -a -e cpu-clock,context-switches -G "$a,$b,$TESTCG" --json-rows -o "$TMP/out.jsonl" -- \
	sh -c "
	$(declare -f cg_run_noted); CGROOT=$CGROOT
	cg_run_noted $a $TMP/pre.a $BURN 1.0 & cg_run_noted $b $TMP/pre.b $BURN 1.0 &
	cg_run_noted $b $TMP/pre.b $BURN 1.0 & wait"
rc=$?
steal=$(( $(steal_ns) - st0 ))
unt=$(untraced_ns "$TMP/out.jsonl")	# time whose owner emon-perf estimated (lib.sh)
check "stat exits 0" [ $rc -eq 0 ]
ua=$(( $(cg_usage_ns "$a") - ua0 )) ub=$(( $(cg_usage_ns "$b") - ub0 ))
ea=$(jrow "$TMP/out.jsonl" cgroup "$a" cpu-clock)
eb=$(jrow "$TMP/out.jsonl" cgroup "$b" cpu-clock)
echo "      cpu.stat: a=$ua b=$ub  emon-perf: a=$ea b=$eb (ns)"
check "cgroup a cpu-clock matches cpu.stat within 3% (+ steal + untraced time)" near_steal "$ea" "$ua" 3 "$((steal + unt))"
check "cgroup b cpu-clock matches cpu.stat within 3% (+ steal + untraced time)" near_steal "$eb" "$ub" 3 "$((steal + unt))"
# steal falls on whatever runs: the share's tolerance grows with the
# part of the machine's time the hypervisor took, and with the untraced
# time, which can move between a and b
sys=$(jrow "$TMP/out.jsonl" system all cpu-clock)
tol=$(python3 -c "print(round(1 + 100 * ($steal / $sys + $unt / ($ea + $eb)), 2))")
check "b/(a+b) share matches within 1% (+ the run's steal and untraced time: $tol%)" near \
	"$(python3 -c "print($eb / ($ea + $eb))")" "$(python3 -c "print($ub / ($ua + $ub))")" "$tol"
ep=$(jrow "$TMP/out.jsonl" cgroup "$TESTCG" cpu-clock)
check "the parent's row includes both children (perf -G semantics): $ep = $ea + $eb" [ "$ep" -eq $((ea + eb)) ]
# a burner's 1.0 s of CPU time includes its shell's, before it joined the
# cgroup (about a millisecond here, 100 ms in a TCG guest: measured), and
# the join itself: 0.5% slack, less the untraced time
pa=$(awk '{ s += $1 } END { print s + 0 }' "$TMP/pre.a")
pb=$(awk '{ s += $1 } END { print s + 0 }' "$TMP/pre.b")
echo "      untraced time: $((unt / 1000000)) ms; CPU time before joining: a $((pa / 1000000)) ms, b $((pb / 1000000)) ms"
check "the burners' known work: a >= 0.995 s - its time before joining ($((ea + unt + pa)) ns with it and the untraced time)" \
	[ $((ea + unt + pa)) -ge 995000000 ]
check "the burners' known work: b >= 1.99 s - their time before joining ($((eb + unt + pb)) ns with it and the untraced time)" \
	[ $((eb + unt + pb)) -ge 1990000000 ]
finish
