#!/usr/bin/env bash
# The daemon's counts against the kernel's, on whatever kernel runs this
# (the host's, and Debian 12's 6.1 and 6.12 in tests/vm/), in little
# time: burners in two cgroups made after the daemon started, so that
# cpu.stat's whole usage is the window; each cgroup's
# emon_cgroup_cpu_clock_seconds_total on /metrics, read once they ended,
# against it within 1% (+ steal + the daemon's untraced time + its part
# of the interrupts); then a
# stat attached to the daemon counts a third cgroup against its cpu.stat
# within 2% (+ steal + untraced: attached_burn).
. "$(dirname "$0")/lib.sh"

S=$TMP/emon.sock MPORT=$(free_port)
serve_start "$S" "$TMP/serve.err" -e cpu-clock,context-switches \
	--listen 127.0.0.1:$MPORT || finish
a=$(cg_new a) b=$(cg_new b)
st0=$(steal_ns) un0=$(metrics_untraced_ns $MPORT) irq0=$(irq_ns) w0=${EPOCHREALTIME/./}
cg_burners 0.5 "$a" "$b" "$b"
wait "${BURNERS[@]}"
steal=$(($(steal_ns) - st0)) unt=$(($(metrics_untraced_ns $MPORT) - ${un0:-0}))
irq=$(($(irq_ns) - irq0)) all=$(((${EPOCHREALTIME/./} - w0) * 1000 * $(nproc)))
ua=$(cg_usage_ns "$a") ub=$(cg_usage_ns "$b")
curl -s "http://127.0.0.1:$MPORT/metrics" >"$TMP/scrape.txt"
m() { # CGROUP: its cpu-clock on /metrics, in ns
	awk -v c="cgroup=\"$1\"" '$1 ~ /^emon_cgroup_cpu_clock_seconds_total\{/ && index($1, c) {
		printf "%.0f", $2 * 1e9; found = 1 } END { if (!found) print "none" }' "$TMP/scrape.txt"
}
ma=$(m "$a") mb=$(m "$b")
echo "      /metrics: a $ma ns, b $mb ns; cpu.stat: a $ua ns, b $ub ns; steal $((steal / 1000)) us, untraced $((unt / 1000)) us, interrupts $((irq / 1000)) us"
check "/metrics has cgroup a" [ "$ma" != none ]
check "/metrics has cgroup b" [ "$mb" != none ]
if [ "$ma" != none ] && [ "$mb" != none ]; then
	# each cgroup's part of the interrupts, by its part of the CPUs' time
	# (lib/steal.sh: irq_ns; 0 here, tens of ms in a TCG guest)
	check "cgroup a: /metrics vs cpu.stat within 1% (+ steal + untraced + its part of the interrupts)" \
		near_steal "$ma" "$ua" 1 $((steal + unt + $(steal_part "$irq" "$ma" "$all")))
	check "cgroup b: /metrics vs cpu.stat within 1% (+ steal + untraced + its part of the interrupts)" \
		near_steal "$mb" "$ub" 1 $((steal + unt + $(steal_part "$irq" "$mb" "$all")))
fi
attached_burn "$S" "$DPID" "attached"
finish
