#!/bin/sh
# Inside the arm64 guest (busybox sh; tests/vm/arm64.sh boots it): run
# the arm64 emon-perf beside its references on QEMU's emulated PMUv3 and
# write what each gave to /out, the host's writable share, where
# tests/vm/arm64-check.py holds them against each other. Nothing is
# judged here. Each run's exit status goes to /out/rc as "NAME RC".
#   sh tests/vm/arm64-guest.sh BUILD_DIR PERF
# BUILD_DIR: make cross-arm64's (emon-perf, tools/fake-rapl; tests/: taskcount
# and a static tools/burn, which tests/vm/arm64.sh builds);
# PERF: Debian's arm64 perf, unpacked (tests/vm/debpkg.sh).
# Workloads are small: under -icount shift=0 a busy vCPU starves the
# other about 20:1. The programs run from the guest's tmpfs, not over 9p.
set -u
B=$1 PERF_SRC=$2
O=/out W=/tmp/e
CG=/sys/fs/cgroup
[ -d "$O" ] || { echo "arm64-guest: no /out share"; exit 125; }
mkdir -p "$W" && cp "$B/emon-perf" "$B/tests/burn" "$B/tools/fake-rapl" "$B/tests/taskcount" \
	"$B/tools/selfmon/hw" "$PERF_SRC" "$W/" || exit 125
E=$W/emon-perf PERF=$W/perf TC=$W/taskcount BURN=$W/burn
: >"$O/rc"
# run NAME CMD...: CMD's output in /out/NAME.out, its status in /out/rc
run() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	"$@" >"$O/$name.out" 2>&1
	rc=$?
	echo "$name $rc" >>"$O/rc"
	echo "arm64-guest: $name: exit $rc in $(($(date +%s) - t0)) s"
}
uname -r >"$O/kernel"
dmesg | grep -i 'hw perfevents' >"$O/dmesg-pmu"
ls /sys/bus/event_source/devices/armv8_pmuv3/events >"$O/pmu-events" 2>&1

# check with the NMI watchdog as the kernel set it (one of its rows)
run check "$E" check
run list "$E" list -v
# the rest with every counter free: 6 + the cycle counter
echo 0 >/proc/sys/kernel/nmi_watchdog 2>/dev/null	# 6.1 on arm64 has none

mkdir -p "$CG/ea" "$CG/eb"
# -G over two cgroups, one CPU burner each (0.15 and 0.3 s of CPU), on
# both read paths; per-task counters on each burner and perf's
# --for-each-cgroup on the same run. One burner after the other: while
# one vCPU is busy, QEMU runs the other seldom, and a vCPU left waiting
# where a task's own counter is off but its cgroup's still on (its exit,
# past perf_event_exit_task) sees the virtual clock jump by the busy
# one's run: the cgroup's count, emon-perf's and perf's alike, was then
# up to 16% above the task's own (0.1-0.4% one at a time)
for mode in switch counters; do
	run "G-$mode" env EMON_SWITCH_EVENTS=$mode "$E" stat -a -e cycles,instructions \
		-G /ea,/eb --by system,cgroup --json-rows -o "$O/G-$mode.jsonl" -- \
		"$PERF" stat -a -x, -e cycles,instructions --for-each-cgroup ea,eb \
		-o "$O/G-$mode.perf" -- sh -c "
		$TC -o $O/G-$mode.ref-ea -c $CG/ea -- $BURN 0.15
		$TC -o $O/G-$mode.ref-eb -c $CG/eb -- $BURN 0.3"
done

# command mode: the command's tree against its own per-task counters
run cmd "$E" stat -e cycles,instructions --json-rows -o "$O/cmd.jsonl" -- \
	"$TC" -o "$O/cmd.ref" -- "$BURN" 0.5

# -p: a burner held at a FIFO until emon-perf's command opens it, counted
# by its per-task counters from its exec
rm -f "$W/go" "$O/p.ref" && mkfifo "$W/go"
"$TC" -o "$O/p.ref" -P "$W/p.pid" -f "$W/go" -- "$BURN" 0.2 &
tc=$!
while [ ! -s "$W/p.pid" ]; do sleep 0.05; done
pid=$(cat "$W/p.pid")
echo "$pid" >"$O/p.pid"
run p "$E" stat -p "$pid" -e cycles,instructions --json-rows -o "$O/p.jsonl" -- \
	sh -c "echo go >$W/go; while [ ! -s $O/p.ref ]; do sleep 0.05; done"
wait "$tc"

# --per-core: emon-perf and perf on CPU 0, the burner on CPU 1
run core taskset -c 0 "$E" stat -a --per-core -e cycles,instructions --json-rows -o "$O/core.jsonl" -- \
	"$PERF" stat -a --per-core -x, -e cycles,instructions -o "$O/core.perf" -- \
	"$TC" -o "$O/core.ref" -- taskset -c 1 "$BURN" 0.2

# IPC and energy per instruction: a fake powercap tree at 20 W, the
# package's energy split between two cgroups by their cycles (one
# burner after the other, as above), the tree's writer on the burners'
# CPU: on the other, QEMU would run it late (the busy vCPU starves the
# idle one), and the tree's energy lag behind the virtual clock
taskset -c 0 "$W/fake-rapl" "$W/pc" 20 --period-ms 1 --duration-s 600 &
rapl=$!
while [ ! -e "$W/pc/.ready" ]; do sleep 0.05; done
run energy "$E" stat -a -e cycles,instructions -G /ea,/eb --by system,cgroup \
	--powercap-root "$W/pc" --json-rows -o "$O/energy.jsonl" -- sh -c "
	taskset -c 0 $TC -o $O/energy.ref-ea -c $CG/ea -- $BURN 0.1
	taskset -c 0 $TC -o $O/energy.ref-eb -c $CG/eb -- $BURN 0.3"
kill "$rapl"

# multiplexing: 9 events of emon-perf's, each per CPU, for cgroup em,
# where two burners run one after the other; the reference, per-task
# counters on the same work (tests/vm/taskcount.c -m): cycles and
# instructions, :u and :k, pinned, so they hold 4 of the 7 counters
# whatever else wants them, and emon-perf's 9 share the other 3. Then the
# same beside perf --for-each-cgroup em (18 events while em runs): where
# a cgroup switch reschedules emon-perf's events with perf's cgroup ones,
# emon-perf's :k came out up to 4x perf's while each slice was scaled by
# itself (docs/arm64.md); every event is held to perf's there. The text
# too.
MUX=cycles,instructions,cycles:u,instructions:u,cycles:k,instructions:k,armv8_pmuv3/cpu_cycles/,armv8_pmuv3/inst_retired/,armv8_pmuv3/inst_retired/u
mkdir -p "$CG/em"
run mux "$E" stat -a -e "$MUX" -G /em --by cgroup --json-rows -o "$O/mux.jsonl" -- \
	"$TC" -m -o "$O/mux.ref" -c "$CG/em" -- sh -c "$BURN 0.3; $BURN 0.3"
EM="echo \$\$ >$CG/em/cgroup.procs && exec $BURN 0.3"
run mux-perf "$E" stat -a -e "$MUX" -G /em --by cgroup --json-rows -o "$O/mux-perf.jsonl" -- \
	"$PERF" stat -a -x, -e "$MUX" --for-each-cgroup em -o "$O/mux-perf.perf" -- \
	sh -c "sh -c '$EM'; sh -c '$EM'"
run mux-text "$E" stat -a -e "$MUX" -o "$O/mux.txt" -- sh -c "$BURN 0.1 & $BURN 0.1 & wait"
# a group of 8 can never fit the 7 counters: every member not counted, as
# perf says it
GRP="{cycles,instructions,cycles:u,instructions:u,cycles:k,instructions:k,armv8_pmuv3/cpu_cycles/,armv8_pmuv3/inst_retired/}"
run group "$E" stat -a -e "$GRP" -o "$O/group.txt" -- "$BURN" 0.1
run group-perf "$PERF" stat -a -e "$GRP" -o "$O/group.perf" -- "$BURN" 0.1
rmdir "$CG/ea" "$CG/eb" "$CG/em"

# libemon: a thread's own counts through the library (serve --threads)
# beside its own pinned cycles and instructions counters, its CPU time
# and its switches (tools/selfmon/hw). Linux 6.1 has no pidfds of
# threads: serve --threads says so and exits 1
grep -q ' /sys/fs/bpf bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf
mkdir -p "$W/run"
"$E" serve -e cpu-clock,context-switches,cycles,instructions --threads 8 \
	--socket "$W/run/emon.sock" --listen none >/dev/null 2>"$O/selfmon-serve.err" &
d=$!
i=0
while [ ! -S "$W/run/emon.sock" ] && kill -0 "$d" 2>/dev/null && [ $i -lt 400 ]; do
	sleep 0.05; i=$((i + 1))
done
if [ -S "$W/run/emon.sock" ]; then
	run selfmon "$W/hw" "$W/run/emon.sock" 0.5
	kill -TERM "$d"
fi
wait "$d"
echo "selfmon-serve $?" >>"$O/rc"
echo "arm64-guest: done"
