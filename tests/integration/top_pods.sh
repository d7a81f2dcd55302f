#!/usr/bin/env bash
# emon-perf top's pods and namespaces views, driven through tmux: burners
# in cgroups named as containerd under Kubernetes, CRI-O and podman name
# them, their names from copies of tests/fixtures/runtimes/ (one more
# containerd bundle: two pods in namespace kv); on its own events and
# attached to a daemon, over 3 refreshes each shown CPU % (a namespace's,
# a pod's) against the rate of its containers' cgroups' cpu.stat between
# the same repaints; keys P and N switch views, the filter "kv/" keeps
# that namespace's pods and nothing else, --view pods starts there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/top_lib.sh"
command -v tmux >/dev/null || skip "tmux not installed (Debian tmux)"

trap 'tm kill-server 2>/dev/null; cleanup' EXIT

pod_fixtures || exit 1
roots=("${ROOTS[@]}")
declare -A cg
pod_cgroups
# four burners on two CPUs, beside other tests' loads: each gets what
# the scheduler gives it, which cpu.stat says
for c in cache0 cache1 pg cart; do cg_bg "${cg[$c]}" "$BURN" 600; done

tm new-session -d -x 160 -y 40 "bash --norc --noprofile" || { echo "FAIL  tmux"; exit 1; }
tm set-option -g status off >/dev/null
tm send-keys "PS1='READY> '; cd '$PWD'" Enter
wait_pane "'READY>' in p" 5 >/dev/null || { echo "FAIL  no shell prompt"; exit 1; }
top_start() {
	tm send-keys "clear; '$EMON' top $* ${roots[*]} 2>'$TMP/top.err'; echo TOP-EXIT=\$?" Enter
}
top_quit() {
	tm send-keys q
	t=$(wait_pane "'TOP-EXIT=0' in p and p.rstrip().endswith('READY>')" 2)
	check "$1: q, exit 0 (${t:-timeout} s)" [ -n "$t" ]
}
# row NAME: is there a table row whose name cell is NAME (more than the 7
# value cells after it)
row() { echo "any(l.split()[:1] == ['$1'] and len(l.split()) > 7 for l in p.splitlines())"; }

# against_cpustat WHAT NAME=CG[,CG...]...: over 3 whole refreshes, the
# CPU % each row NAME shows (7th cell from the end) against the rate of
# its cgroups' cpu.stat usage between the repaints that bracket it, as a
# % of one CPU. A repaint is seen within ~50 ms and the machine is
# loaded: 10 points of one CPU plus the window's steal (top.sh's bound).
against_cpustat() {
	local what=$1
	shift
	"$PY3" - "$TM_SOCK" "$CGROOT" "$what" "$@" <<'PY'
import os, subprocess, sys, time
sock, root, what, specs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
want = {n: cgs.split(",") for n, cgs in (s.split("=", 1) for s in specs)}
def usage():
    u = {}
    for n, cgs in want.items():
        u[n] = 0
        for c in cgs:
            for l in open(root + c + "/cpu.stat"):
                if l.startswith("usage_usec"):
                    u[n] += int(l.split()[1]) * 1000
    return u
def steal():
    with open("/proc/stat") as f:
        return int(f.readline().split()[8]) * 1e9 / os.sysconf("SC_CLK_TCK")
def shown(p):
    v = {}
    for l in p.splitlines():
        f = l.split()
        if f and f[0] in want and len(f) > 7:
            v[f[0]] = f[-5]
    return v if len(v) == len(want) else None
marks, last = [], None
whole = lambda: sum(b[0] - a[0] >= 0.8 for a, b in zip(marks, marks[1:]))
t_end = time.monotonic() + 15
while whole() < 3 and time.monotonic() < t_end:
    p = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p"], capture_output=True, text=True).stdout
    v = shown(p)
    hdr = tuple(l for l in p.splitlines() if l.startswith("CPU:"))
    if v and (v, hdr) != last:
        now = time.monotonic()
        if marks and now - marks[-1][0] < 0.3:	# the same repaint, seen half done
            marks[-1] = marks[-1][:3] + (v,)
        else:
            marks.append((now, usage(), steal(), v))
        last = (v, hdr)
    time.sleep(0.02)
if whole() < 3:
    print(f"FAIL  {what}: saw {len(marks)} repaints with rows {sorted(want)} in 15 s")
    sys.exit(1)
bad = 0
for (t0, u0, s0, _), (t1, u1, s1, v) in zip(marks, marks[1:]):
    if t1 - t0 < 0.8:
        continue
    tol = 10 + (s1 - s0) / (t1 - t0) / 1e7
    for n in sorted(want):
        rate = (u1[n] - u0[n]) / (t1 - t0) / 1e7
        ok = v[n] != "-" and abs(float(v[n]) - rate) <= tol
        bad += not ok
        print(f"{'ok   ' if ok else 'FAIL '} {what}: {n} shown {v[n]}% vs cpu.stat {rate:.1f}% "
              f"({len(want[n])} cgroups) over {t1 - t0:.2f} s (tolerance {tol:.1f} points)")
sys.exit(bad != 0)
PY
	[ $? -eq 0 ] || FAILS=$((FAILS + 1))
}

# own events: the namespaces view, then pods (P), the filter, N again
top_start --view namespaces
t=$(wait_pane "'View: namespaces' in p and $(row kv) and $(row data) and $(row shop)" 5)
check "--view namespaces: rows kv, data, shop (after ${t:-timeout} s)" [ -n "$t" ]
against_cpustat "namespaces" kv="${cg[cache0]},${cg[cache1]}" data="${cg[pg]}" shop="${cg[cart]}"
tm send-keys P
t=$(wait_pane "'View: pods' in p and $(row kv/cache-0) and $(row kv/cache-1) and $(row data/pg-0)" 3)
check "key P: the pods view, kv/cache-0, kv/cache-1, data/pg-0" [ -n "$t" ]
against_cpustat "pods" kv/cache-0="${cg[cache0]}" kv/cache-1="${cg[cache1]}" data/pg-0="${cg[pg]}"
tm send-keys / kv/ Enter
t=$(wait_pane "'\\n2 of ' in p and $(row kv/cache-0) and $(row kv/cache-1) and 'data/pg-0' not in p" 3)
check "/ kv/: the namespace's two pods, nothing else" [ -n "$t" ]
tm send-keys Escape N
t=$(wait_pane "'View: namespaces' in p and $(row kv) and $(row host)" 3)
check "key N: the namespaces view again, 'host' for what is in no pod (the containers view's word)" [ -n "$t" ]
top_quit "own events"
check "own events: nothing but whole messages on stderr" bash -c "! grep -qv '^emon-perf: ' '$TMP/top.err'"

# attached to a daemon: the same names, from the daemon's files
S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" --listen none "${roots[@]}" || finish
top_start --socket "$S" --view pods
t=$(wait_pane "'attached to the daemon' in p and 'View: pods' in p and $(row kv/cache-0) and $(row shop/cart-5c)" 5)
check "attached, --view pods: the daemon's names" [ -n "$t" ]
against_cpustat "attached, pods" kv/cache-1="${cg[cache1]}" shop/cart-5c="${cg[cart]}"
top_quit "attached"
kill "$DPID"; wait "$DPID" 2>/dev/null
finish
