#!/usr/bin/env bash
# The kernel's features (engine/session/features.c) against the kernel itself, on
# whatever kernel runs this (the host's, and Debian 12's 6.1 and 6.12 in
# tests/vm/): check's rows say what the kernel's BTF and the pidfd
# syscall say; the slower path a missing feature leaves counts what the
# fast one does (page-faults against the process's own rusage), on this
# kernel's own path and with the feature taken away (EMON_KFEATURE_OFF);
# a needed feature taken away is refused in one line; --sched loads.
. "$(dirname "$0")/lib.sh"

"$EMON" check -j --duration 0.5 >"$TMP/check.json" 2>"$TMP/check.err"
check "check -j ran$(tail -1 "$TMP/check.err" | sed 's/^./: &/')" [ -s "$TMP/check.json" ]
row() { # NAME: that row's status, "missing" when none
	"$PY3" -c '
import json, sys
rows = {c["name"]: c["status"] for c in json.load(open(sys.argv[1]))["checks"]}
print(rows.get(sys.argv[2], "missing"))' "$TMP/check.json" "$1"
}
# the truths: the kernel's own BTF (bpftool), the syscall (python's)
bpftool btf dump file /sys/kernel/btf/vmlinux >"$TMP/btf.txt" || skip "bpftool cannot read the kernel's BTF"
has_btf() { grep -q "$1" "$TMP/btf.txt" && echo ok || echo "$2"; }
want=$(has_btf "FUNC 'bpf_rdonly_cast'" info)
check "bpf_rdonly_cast: row '$(row bpf_rdonly_cast)', the kernel's BTF says $want" [ "$(row bpf_rdonly_cast)" = "$want" ]
# sched_process_exit's prototype: (void *, task, group_dead) from 6.16
want=$("$PY3" -c '
import re, sys
t = open(sys.argv[1]).read()
def line(i): return re.search(r"^\[%s\] (.*)$" % i, t, re.M).group(1)
m = re.search(r"TYPEDEF .btf_trace_sched_process_exit. type_id=(\d+)", t)
ptr = re.search(r"type_id=(\d+)", line(m.group(1))).group(1)
print("ok" if int(re.search(r"vlen=(\d+)", line(ptr)).group(1)) >= 3 else "info")' "$TMP/btf.txt")
check "exit group_dead: row '$(row "exit group_dead")', the kernel's BTF says $want" [ "$(row "exit group_dead")" = "$want" ]
want=$("$PY3" -c '
import os, threading
try:
    os.close(os.pidfd_open(threading.get_native_id(), os.O_EXCL)); print("ok")
except OSError:
    print("info")')
check "pidfd of a thread: row '$(row "pidfd of a thread")', pidfd_open says $want" [ "$(row "pidfd of a thread")" = "$want" ]
for f in tp_btf "task storage" get_current_task_btf perf_event_read_value "test-run on a CPU"; do
	check "$f: needed, row ok" [ "$(row "$f")" = ok ]
done

# page-faults: in place where the kfunc is, else read by the helper; the
# process's own minor + major faults are the truth (its exit adds a few)
cat >"$TMP/faults.py" <<'PY'
import mmap, resource, sys
m = mmap.mmap(-1, 4096 * 20000)
for i in range(0, len(m), 4096):
    m[i] = 1
r = resource.getrusage(resource.RUSAGE_SELF)
open(sys.argv[1], "w").write(f"{r.ru_minflt + r.ru_majflt}\n")
PY
# faults OFF: page-faults counted with EMON_KFEATURE_OFF=OFF (the path a
# kernel without those features takes, on this one). A slice that
# followed a switch the kernel did not trace (this sandbox's hidden
# threads, steal.sh) is split by CFS run time, its faults with it: the
# faults of that much of the run's cpu-clock (untraced_v_ns, at the run's
# own rate of faults) are allowed too; on a host that traces every
# switch that is 0.
faults() {
	local got path said clock unt
	EMON_KFEATURE_OFF=$1 "$EMON" stat -v -x, -e page-faults,cpu-clock -- "$PY3" "$TMP/faults.py" \
		"$TMP/faults" 2>"$TMP/pf.err"
	check "stat -e page-faults${1:+ with $1 off} exits 0" [ $? -eq 0 ]
	got=$(awk -F, '$3 == "page-faults" { print $1; exit }' "$TMP/pf.err")
	clock=$(awk -F, '$3 == "cpu-clock" { print $1 * 1e6; exit }' "$TMP/pf.err")
	unt=$(untraced_v_ns "$TMP/pf.err")
	path="in place"
	[ "$(row bpf_rdonly_cast)" = ok ] && [ "$1" != bpf_rdonly_cast ] ||
		path=bpf_perf_event_read
	[ "${EMON_SWITCH_EVENTS:-}" = counters ] && path="its counter (EMON_SWITCH_EVENTS=counters)"
	echo "      page-faults read $path: $got; the process's own: $(cat "$TMP/faults"); untraced: $unt ns of $clock"
	check "page-faults ($path) = the process's own minor + major faults within 1% + 300 (its exit's) + the untraced slices' share" \
		"$PY3" -c '
import sys
a, b, us = (float(x) for x in sys.argv[1:])
tol = 0.01 * b + 300 + us
print(f"      {a:.0f} vs {b:.0f}: {abs(a - b):.0f} apart (tolerance {tol:.0f})")
sys.exit(0 if abs(a - b) <= tol else 1)' "${got:-0}" "$(cat "$TMP/faults")" "$(untraced_count "$got" "$unt" "$clock")"
	said=$(grep -c "no bpf_rdonly_cast" "$TMP/pf.err")
	check "-v names the slower path exactly when it is taken ($said line)" \
		[ "$said" -eq "$([ "$path" = bpf_perf_event_read ] && echo 1 || echo 0)" ]
}
faults ""
faults bpf_rdonly_cast

# a kernel without a needed feature: one line naming it and the first
# Linux that has it, exit 1, nothing left behind
base=$(bpf_max_ids)
for f in tp_btf "task storage" get_current_task_btf perf_event_read_value "test-run on a CPU"; do
	EMON_KFEATURE_OFF=$f "$EMON" stat -a -e cpu-clock --timeout 100 >/dev/null 2>"$TMP/lack.err"
	rc=$?
	check "without $f: exit 1, one line naming it and its Linux ($(cat "$TMP/lack.err"))" \
		[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/lack.err")" -eq 1 ] &&
		grep -q "lacks $f (Linux [0-9.]* or later)" "$TMP/lack.err"
done
check "no BPF program, map or link left behind" [ -z "$(bpf_orphans "$base")" ]

"$EMON" stat --sched -e cpu-clock -- true 2>"$TMP/sched.err"
check "--sched loads on this kernel$(head -1 "$TMP/sched.err" | sed 's/^./: &/')" [ $? -eq 0 ]
finish
