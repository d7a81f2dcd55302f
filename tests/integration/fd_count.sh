#!/usr/bin/env bash
# One perf_event per CPU per event that needs a counter, whatever the
# number of cgroups watched: 1 and 200 cgroups both give online CPUs x 1
# fds for cpu-clock,context-switches,page-faults (the switch program
# counts the first two itself: no perf_event for them; in the counter pass
# each has one).
. "$(dirname "$0")/lib.sh"

ncpu=$(nproc)
# page-faults; all three in the counter pass
nev=$(per_mode 1 3)
for k in 1 200; do
	list=
	for i in $(seq $k); do list=$list${list:+,}$(cg_new "k$k/c$i"); done
	"$EMON" stat -e cpu-clock,context-switches,page-faults --for-each-cgroup "$list" -o /dev/null --timeout 5000 &
	pid=$!
	fds=0
	for _ in $(seq 100); do	# poll until the events are open
		fds=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c 'anon_inode:\[perf_event\]')
		[ "$fds" -gt 0 ] && [ -n "$(bpf_ids $pid | grep link)" ] && break
		sleep 0.05
	done
	sleep 0.2
	fds=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c 'anon_inode:\[perf_event\]')
	ids=$(bpf_ids $pid)
	kill -INT $pid
	wait $pid
	check "K=$k: its BPF programs and links are gone after SIGINT" bpf_gone "$ids"
	check "K=$k cgroups: $fds perf_event fds = $ncpu CPUs x $nev event(s) with a counter" [ "$fds" -eq $((ncpu * nev)) ]
done
finish
