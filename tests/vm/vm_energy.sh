#!/usr/bin/env bash
# A VM guest fed by its host (docs/vm-energy.md), end to end: on the host,
# emon-perf serve counts a fake powercap tree at 40 W with --vm-energy for
# a cgroup of this test's own, in which the QEMU of tests/vm/vm.sh runs
# (with the harness' shells, all but idle); the directory it writes is
# shared read-only into the guest (EMON_VM_SHARE, at /share), where
# tests/vm/vm_energy_guest.sh runs burners in cgroups /a and /b under
# emon-perf stat -a --powercap-root /share -G /a,/b. Checked here:
#  - the host gave the VM some of the package's joules, and no more;
#  - every row's energy_source and energy_scope are vm-host;
#  - the guest's system rows add up to what the host's counter advanced
#    over the run: the guest reads that very counter, so they differ only
#    by the steps the host made between stat's first read and its
#    command's own first read of it, and between the command's last and
#    stat's: 0 <= rows - counter <= 2 steps, a step being the largest the
#    guest saw (the host writes once a second); and exactly (10 uJ an
#    interval: the rows' decimals) the difference of two values it took;
#  - in each interval but the first and the last (where the burners
#    start and end a little apart: seen 13% off in the first) /a (a CPU)
#    and /b (30% of one) get the same joules per second of cpu-clock (5%:
#    the host's energy comes in steps a second apart, each split by what
#    ran in the guest's read period it lands in), and in every interval
#    no more than the system between them; over the run
#    /a's share of their joules is its share of their cpu.stat usage
#    within 5 points: the joules per second of cpu-clock differ between
#    intervals (the VM's load, so its host share, changes as the burners
#    start and end a little apart under TCG: seen 0.1 to 2.6 points), and
#    each cgroup's cpu-clock is its cpu.stat's within 3%, below;
#  - each cgroup's cpu-clock over the run is its cpu.stat usage in the
#    guest (within 3% and 20 ms).
#   tests/vm/vm_energy.sh [SERIES]   (default 6.12)
# Exit status: 0 passed or skipped (the reason said), 1 failed.
set -u
cd "$(dirname "$0")/../.."
export OUTPUT=${OUTPUT:-build}
series=${1:-6.12}
skip() { echo "vm_energy: SKIP: $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root (serve, a cgroup, 9p of /)"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64"
[ "$(uname -m)" = x86_64 ] || skip "an x86-64 host's test"
command -v python3 >/dev/null || skip "no python3"
tests/vm/kernel.sh x86 "$series" >/dev/null || skip "no Debian $series kernel (tests/vm/kernel.sh)"
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgroot" ] || skip "no cgroup2 mount"
t=$(mktemp -d) || exit 1
vmcg=emon-vm-energy-$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rmdir "$cgroot/$vmcg" 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT
mkdir -p "$t/share" "$t/out" "$cgroot/$vmcg" || exit 1
EMON=${EMON:-$PWD/emon-perf}
"${TOOLS:-$OUTPUT/tools}/fake-rapl" "$t/rapl" 40 & pids+=($!)
"$EMON" serve --socket "$t/sock" --listen none --powercap-root "$t/rapl" \
	--vm-energy "/$vmcg=$t/share" 2>"$t/serve.err" & pids+=($!)
for _ in $(seq 100); do
	[ -e "$t/share/intel-rapl:0/energy_uj" ] && break
	sleep 0.1
done
[ -e "$t/share/intel-rapl:0/energy_uj" ] || { echo "FAIL  serve wrote no vm-host zone"; cat "$t/serve.err"; exit 1; }
t0=$(date +%s)
h0=$(cat "$t/share/intel-rapl:0/energy_uj") s0=$(date +%s.%N)
EMON_VM_SHARE=$t/share EMON_VM_OUT=$t/out sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' \
	vm "$cgroot/$vmcg" tests/vm/vm.sh -k "$series" -t 90 -- tests/vm/vm_energy_guest.sh
rc=$?
h1=$(cat "$t/share/intel-rapl:0/energy_uj") s1=$(date +%s.%N)
echo "$h0 $h1 $s0 $s1" >"$t/out/host"
echo "vm_energy: the guest ran in $(($(date +%s) - t0)) s (exit $rc)"
[ $rc -eq 0 ] || { echo "FAIL  the guest's stat (exit $rc)"; cat "$t/serve.err"; exit 1; }
python3 - "$t/out" <<'PY'
import json, sys
d = sys.argv[1]
fails = 0
def check(ok, what):
    global fails
    print(("ok    " if ok else "FAIL  ") + what)
    fails += not ok
e0, e1, ua0, ua1, ub0, ub1 = map(int, open(d + "/figures").read().split())
rows = [json.loads(l) for l in open(d + "/rows") if l.startswith("{")]
sysr = [r for r in rows if r["scope"] == "system"]
check(len(sysr) >= 2, "%d intervals of stat in the guest" % len(sysr))
check(all(r.get("energy_source") == "vm-host" and r.get("energy_scope") == "vm-host"
          for r in sysr), "energy_source and energy_scope vm-host")
vals = [int(l) for l in open(d + "/counter") if l.strip().isdigit()]
steps = [b - a for a, b in zip(vals, vals[1:]) if b != a]
step = max(steps) / 1e6 if steps else 0
adv = (e1 - e0) / 1e6
tot = sum(r["energy_j"] or 0 for r in sysr)
check(adv > 0 and step > 0, "the host's counter advanced %.3f J in steps of up to %.3f J" % (adv, step))
check(-1e-6 <= tot - adv <= 2 * step + 1e-6,
      "guest rows %.3f J vs the host counter's %.3f J within them: %.3f J more (tolerance 0 to %.3f J: a host step at each end)"
      % (tot, adv, tot - adv, 2 * step))
# exactly: stat's first and last reads are two of the values the
# counter took (the guest polls it ten times a host step)
pairs = [(b - a) / 1e6 for a in set(vals) for b in set(vals) if a <= e0 and b >= e1]
best = min(pairs, key=lambda p: abs(p - tot)) if pairs else float("nan")
check(abs(best - tot) <= 1e-5 * len(sysr),
      "guest rows %.6f J: the counter's step from one of its values to another, %.6f J" % (tot, best))
h0, h1, s0, s1 = map(float, open(d + "/host").read().split())
check(0 < h1 - h0 <= 40e6 * (s1 - s0),
      "the host gave the VM %.1f J in %.1f s, no more than the package's 40 W" % ((h1 - h0) / 1e6, s1 - s0))
clk = {"/a": 0, "/b": 0}
bad = steady = 0
for s in sysr:
    cg = {r["key"]: r for r in rows if r["scope"] == "cgroup" and r["interval"] == s["interval"]}
    ej, cs = s["energy_j"] or 0, s["counters"]["cpu-clock"]
    parts = 0
    jpns = {}
    for k in clk:
        r = cg.get(k)
        if not r:
            continue
        clk[k] += r["counters"]["cpu-clock"]
        parts += r["energy_j"] or 0
        if r["counters"]["cpu-clock"] > 200e6:
            jpns[k] = (r["energy_j"] or 0) / r["counters"]["cpu-clock"]
    # the shares are steady between the burners' starts and ends only:
    # not in the first interval or the last, where they start and end a
    # little apart under TCG
    if s is sysr[0] or s is sysr[-1]:
        jpns = {}
    if len(jpns) == 2:
        steady += 1
    if len(jpns) == 2 and abs(jpns["/a"] - jpns["/b"]) > 0.05 * max(jpns.values()):
        check(False, "interval %.3f: /a %.4g J/s of cpu-clock, /b %.4g" % (s["interval"], jpns["/a"] * 1e9, jpns["/b"] * 1e9))
        bad += 1
    if parts > ej + 1e-9:
        check(False, "interval %.3f: /a and /b %.4f J > the system's %.4f J" % (s["interval"], parts, ej))
        bad += 1
check(bad == 0 and steady > 0, "each interval: /a and /b get the same joules per second of cpu-clock (5%%; %d between the first and the last), together no more than all" % steady)
ej = {k: sum(r["energy_j"] or 0 for r in rows if r["scope"] == "cgroup" and r["key"] == k) for k in clk}
ua, ub = (ua1 - ua0) * 1e3, (ub1 - ub0) * 1e3
if ej["/b"] > 0 and ub > 0:
    sa, su = ej["/a"] / (ej["/a"] + ej["/b"]), ua / (ua + ub)
    check(abs(sa - su) <= 0.05, "/a %.3f J, /b %.3f J: /a's share %.2f%%, by cpu.stat %.2f%% (tolerance 5 points)"
          % (ej["/a"], ej["/b"], 100 * sa, 100 * su))
else:
    check(False, "/b got no joules or no CPU time")
for k, u in (("/a", (ua1 - ua0) * 1e3), ("/b", (ub1 - ub0) * 1e3)):
    check(abs(clk[k] - u) <= 0.03 * u + 20e6,
          "%s cpu-clock %.1f ms vs cpu.stat %.1f ms: %.2f%% (tolerance 3%% + 20 ms)"
          % (k, clk[k] / 1e6, u / 1e6, 100 * (clk[k] - u) / u if u else 0))
sys.exit(1 if fails else 0)
PY
