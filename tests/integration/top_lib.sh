# Helpers for the tests that drive emon-perf top in a real terminal
# (tmux): sourced after lib.sh, by top.sh and tenants_top.sh.
TM_SOCK=$TMP/tmux.sock
tm() { tmux -S "$TM_SOCK" "$@"; }
pane() { tm capture-pane -p; }
# wait_pane PYTHON_COND SECONDS: poll the pane until the condition on its
# text (p) holds; prints the seconds it took, 1 on timeout
wait_pane() {
	"$PY3" - "$TM_SOCK" "$1" "$2" <<'PY'
import subprocess, sys, time
sock, cond, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
t0 = time.monotonic()
while True:
    p = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p"], capture_output=True, text=True).stdout
    if eval(cond):
        print(f"{time.monotonic() - t0:.2f}")
        sys.exit(0)
    if time.monotonic() - t0 > limit:
        print(p, file=sys.stderr)
        sys.exit(1)
    time.sleep(0.05)
PY
}


# cpu_of NAME: the CPU% cell of the first row whose name cell ends in NAME
# (the last 7 cells are the values: POWER PKG% CPU% ...), "" when none
cpu_of() {
	pane | awk -v n="$1" '{ for (i = 1; i <= NF - 7; i++) if ($i == n) { print $(NF - 4); exit } }'
}

# top_start ARGS...: top in the pane, its stderr in $TMP/top.err; $TOP_PID
top_start() {
	tm send-keys "clear; ${TOP_AS:-} '$EMON' top $* 2>'$TMP/top.err'; echo TOP-EXIT=\$?" Enter
	TOP_PID=
	for _ in $(seq 250); do
		TOP_PID=$(pgrep -P "$(tm display-message -p '#{pane_pid}')" -x emon-perf)
		[ -n "$TOP_PID" ] && break
		sleep 0.02
	done
}


# against_kernel WHAT NAME CELL REF FILES...: over 3 refreshes, the
# value top shows in the row named NAME, its CELL-th field from the end
# (-5: CPU%; -3: WAIT% with --sched), against the kernel's rate of REF
# between the two repaints that bracket it, as a % of one CPU: REF usage
# is cpu.stat's usage_usec (FILES: one cpu.stat), run_delay the second
# field of /proc/PID/schedstat (FILES: each task's, summed: their time
# on a run queue, waiting). A repaint is seen within ~50 ms of when it
# happens and the machine is loaded: 10 points of one CPU, plus the
# steal of the window, may separate them. run_delay must show a wait
# (50% at least): tasks that wait nothing would pass as 0 against 0.
against_kernel() {
	"$PY3" - "$TM_SOCK" "$@" <<'PY'
import os, subprocess, sys, time
sock, what, name, cell, ref, files = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6:]
label = {"usage": "cpu.stat", "run_delay": "run_delay"}[ref]
def pane():
    return subprocess.run(["tmux", "-S", sock, "capture-pane", "-p"], capture_output=True, text=True).stdout
def ref_ns():
    if ref == "usage":
        for l in open(files[0]):
            if l.startswith("usage_usec"):
                return int(l.split()[1]) * 1000
    return sum(int(open(f).read().split()[1]) for f in files)
def steal():
    with open("/proc/stat") as f:
        v = f.readline().split()
    return int(v[8]) * 1e9 / os.sysconf("SC_CLK_TCK")
def shown(p):
    for l in p.splitlines():
        f = l.split()
        if name in f and len(f) > 7:
            return f[cell], [x for x in p.splitlines() if x.startswith("CPU:")]
    return None, None
# windows of a whole refresh (the first one is half a second): 3 of them
def whole(m):
    return sum(b[0] - a[0] >= 0.8 for a, b in zip(m, m[1:]))
last, marks, bad, n = None, [], 0, 0
t_end = time.monotonic() + 15
while whole(marks) < 3 and time.monotonic() < t_end:
    p = pane()
    v, hdr = shown(p)
    sig = (v, tuple(hdr or ()))
    if v is not None and sig != last:
        now = time.monotonic()
        # a repaint seen half done: the same one, its value as it ends
        if marks and now - marks[-1][0] < 0.3:
            marks[-1] = marks[-1][:3] + (v,)
        else:
            marks.append((now, ref_ns(), steal(), v))
            n += 1
        last = sig
    time.sleep(0.02)
if whole(marks) < 3:
    print(f"FAIL  {what}: saw {len(marks)} repaints in 15 s")
    sys.exit(1)
for (t0, u0, s0, _), (t1, u1, s1, v) in zip(marks, marks[1:]):
    if t1 - t0 < 0.8:
        continue
    rate = (u1 - u0) / (t1 - t0) / 1e7
    st = (s1 - s0) / (t1 - t0) / 1e7
    tol = 10 + st
    ok = abs(float(v) - rate) <= tol and (ref != "run_delay" or rate >= 50)
    bad += not ok
    print(f"{'ok   ' if ok else 'FAIL '} {what}: shown {v}% vs {label} {rate:.1f}% over {t1 - t0:.2f} s (tolerance {tol:.1f} points: 10 + steal)")
sys.exit(bad != 0)
PY
	[ $? -eq 0 ] || FAILS=$((FAILS + 1))
}
