#!/usr/bin/env python3
# The arm64 guest's outputs (tests/vm/arm64-guest.sh wrote them to DIR)
# held against their references for the same work: per-task inherited
# counters (tests/vm/taskcount.c), Debian's arm64 perf on the same run,
# the fake powercap tree's known 20 W. One "ok" or "FAIL" line a check,
# its figures under it as the integration tests print them ("A vs B: P%
# (tolerance T%)"). Exit status 1 when any check failed.
#   tests/vm/arm64-check.py DIR
# What QEMU's PMUv3 counts (-icount shift=0): cpu_cycles is the virtual
# clock at 1 GHz, and inst_retired QEMU's instruction count, which also
# moves with the virtual clock; both count on while a CPU idles. So a
# task's cycles and instructions are about its virtual time on a CPU, and
# IPC is 1.00 whenever a CPU is busy: what is checked is that they are
# read, attributed, multiplexed and scaled right, not what a core does.
import json
import os
import re
import sys

D = sys.argv[1]
FAILS = 0
WATTS, NCPU, GHZ = 20.0, 2, 1e9


def check(what, ok, figures=()):
    global FAILS
    print(f"{'ok   ' if ok else 'FAIL '} {what}")
    for f in figures:
        print(f"      {f}")
    if not ok:
        FAILS += 1
    return ok


def path(name):
    return os.path.join(D, name)


def text(name):
    try:
        with open(path(name)) as f:
            return f.read()
    except OSError:
        return ""


def rows(name):
    """emon-perf --json-rows' rows, summed over intervals, by (scope, key)"""
    out = {}
    for line in text(name).splitlines():
        r = json.loads(line)
        k = (r["scope"], str(r["key"]))
        o = out.setdefault(k, {"counters": {}, "ratio": r.get("ratio", {}), "energy_j": 0.0,
                               "interval": 0.0})
        for e, v in r["counters"].items():
            o["counters"][e] = None if v is None else (o["counters"].get(e) or 0) + v
        o["energy_j"] += r.get("energy_j") or 0
        o["interval"] += r.get("interval") or 0
        for f in ("epi_nj", "ipc"):
            if f in r:
                o[f] = r[f]
    return out


def ref(name):
    """taskcount's file: {event: (count, enabled, running)}"""
    out = {}
    for line in text(name).splitlines():
        f = line.split()
        if len(f) == 4:
            out[f[0]] = tuple(int(x) for x in f[1:])
    return out


def perf_csv(name):
    """perf stat -x,'s rows: {(event, cgroup or core or ''): (count, pct)}"""
    out = {}
    for line in text(name).splitlines():
        f = line.split(",")
        if len(f) < 5 or line.startswith("#"):
            continue
        if re.match(r"S\d+-D\d+-C\d+$", f[0]):	# --per-core: core, CPUs, value, unit, event
            core, f = f[0], f[2:]
        else:
            core = ""
        val, ev = f[0], f[2]
        # --for-each-cgroup: value, unit, event, cgroup, run time, pct
        grp = f[3] if len(f) > 5 and not re.match(r"^[0-9.]+$", f[3]) else ""
        pct = f[5] if grp else f[4]
        try:
            out[(ev, grp or core)] = (float(val), float(pct))
        except ValueError:
            out[(ev, grp or core)] = (None, 0.0)
    return out


def near(what, a, b, tol):
    err = abs(a - b) / b * 100 if b else float("inf")
    return err <= tol, f"{what}: {a:.6g} vs {b:.6g}: {err:.3f}% (tolerance {tol}%)"


def rcs():
    return dict(l.split() for l in text("rc").splitlines() if len(l.split()) == 2)


def exact(r, what):
    """the reference ran all the time it was enabled (its own counters, unmultiplexed)"""
    return check(f"{what}: the per-task reference ran unmultiplexed",
                 bool(r) and all(v[1] == v[2] and v[0] > 1e7 for v in r.values()),
                 [f"{e} {v[0]} (enabled {v[1]} ns, running {v[2]} ns)" for e, v in r.items()])


def versus_ref(what, got, r, ins_tol=1.0, cyc_tol=2.0):
    """emon-perf's row (its counters) against a per-task reference"""
    figs, ok = [], True
    for ev, tol in (("instructions", ins_tol), ("cycles", cyc_tol)):
        g = (got or {}).get("counters", {}).get(ev)
        if g is None or ev not in r:
            ok = False
            figs.append(f"{ev}: emon-perf {g}, reference {r.get(ev)}")
            continue
        o, f = near(f"{ev} emon-perf vs per-task reference", g, r[ev][0], tol)
        ok, figs = ok and o, figs + [f]
    return check(f"{what}: instructions within {ins_tol}% and cycles within {cyc_tol}% of the per-task reference", ok, figs)


print(f"arm64 guest: Linux {text('kernel').strip()}; {text('dmesg-pmu').strip()}")
runs = rcs()
for name in ("check", "list", "G-switch", "G-counters", "cmd", "p", "core", "energy", "mux", "mux-perf",
             "mux-text", "group", "group-perf"):
    check(f"{name} exits 0", runs.get(name) == "0", [] if runs.get(name) == "0" else
          [f"exit {runs.get(name)}; its output: {text(name + '.out')[-600:]!r}"])
check("the kernel's PMU driver: armv8_pmuv3 with cpu_cycles and inst_retired",
      "armv8_pmuv3" in text("dmesg-pmu") and
      {"cpu_cycles", "inst_retired"} <= set(text("pmu-events").split()))

# check: its hardware rows, opened and against its own reference, both paths
c = text("check.out")
want = ["cycles", "instructions", "cycles [switch]", "instructions [switch]",
        "cycles [counters]", "instructions [counters]"]
got = {m.group(2).strip(): (m.group(1), m.group(0)) for m in
       re.finditer(r"^(\w+)\s+((?:cycles|instructions)(?: \[\w+\])?)\s.*$", c, re.M)}
check("check: its cycles and instructions rows are ok", all(got.get(w, ("",))[0] == "ok" for w in want),
      [got[w][1] if w in got else f"{w}: no row" for w in want])

# list: the core's own events through libpfm4 (a Neoverse N1: arm_n1)
lst = text("list.out")
m = re.search(r"PMU-specific events \(libpfm4.*?\n\n(.*?)\n\n", lst, re.S)
pfm = lst[m.start():] if m else ""
names = [l.strip() for l in pfm.splitlines() if re.search(r"\b(INST_RETIRED|CPU_CYCLES)\b", l)]
check("list -v: the armv8 core's events through libpfm4 (arm_n1: INST_RETIRED, CPU_CYCLES)",
      "arm_n1" in (m.group(1) if m else "") and any("INST_RETIRED" in l for l in names) and
      any("CPU_CYCLES" in l for l in names),
      [(m.group(1).strip().splitlines() or [""])[0] if m else "no libpfm4 section"] + names[:2])

# -G over two cgroups, on both read paths: each against its per-task
# reference, and against perf --for-each-cgroup on the same run
for mode in ("switch", "counters"):
    g, p = rows(f"G-{mode}.jsonl"), perf_csv(f"G-{mode}.perf")
    for cg in ("ea", "eb"):
        r = ref(f"G-{mode}.ref-{cg}")
        exact(r, f"-G {mode} path /{cg}")
        row = g.get(("cgroup", f"/{cg}"))
        versus_ref(f"-G on the {mode} path, cgroup /{cg}", row, r)
        figs, ok = [], True
        for ev in ("instructions", "cycles"):
            v, pv = (row or {}).get("counters", {}).get(ev), p.get((ev, cg), (None,))[0]
            if v is None or not pv:
                ok = False
                figs.append(f"{ev}: emon-perf {v}, perf {pv}")
                continue
            o, f = near(f"{ev} emon-perf vs perf --for-each-cgroup", v, pv, 2.0)
            ok, figs = ok and o, figs + [f]
        check(f"-G on the {mode} path, cgroup /{cg}: within 2% of perf's on the same run", ok, figs)

# command mode and -p: the command's row, the process's row
cmd = rows("cmd.jsonl")
r = ref("cmd.ref")
exact(r, "command mode")
versus_ref("command mode", next((v for k, v in cmd.items() if k[0] == "command"), None), r)
pid = text("p.pid").strip()
r = ref("p.ref")
exact(r, "-p")
versus_ref(f"-p {pid}", rows("p.jsonl").get(("command", pid)), r)

# --per-core: each core's cycles are the window's virtual time (1 GHz on
# every CPU, idle or not), as perf's are over its own window; CPU 1 ran
# the burner: at least its reference's instructions
core, p, r = rows("core.jsonl"), perf_csv("core.perf"), ref("core.ref")
keys = sorted(k for k in core if k[0] == "core")
ok, figs = len(keys) == NCPU, [f"{len(keys)} core rows"]
for k in keys:
    row = core[k]
    o, f = near(f"{k[1]} cycles vs its window ({row['interval']:.6f} s) at 1 GHz",
                row["counters"]["cycles"], row["interval"] * GHZ, 1.0)
    ok, figs = ok and o, figs + [f]
    pc = p.get(("cycles", k[1]))
    if pc and pc[0]:
        pr = re.findall(rf"^{k[1]},\d+,[0-9]+,,cycles,([0-9]+),", text("core.perf"), re.M)
        if pr:
            o, f = near(f"{k[1]} cycles per ns emon-perf vs perf (each over its window)",
                        row["counters"]["cycles"] / (row["interval"] * 1e9), pc[0] / float(pr[0]), 1.0)
            ok, figs = ok and o, figs + [f]
    else:
        ok = False
        figs.append(f"perf has no cycles row for {k[1]}")
c1 = core.get(("core", "S0-D0-C1"), {}).get("counters", {}).get("instructions") or 0
ok = ok and bool(r) and c1 >= r.get("instructions", (float("inf"),))[0] * 0.99
figs.append(f"S0-D0-C1 instructions {c1} >= 99% of its burner's {r.get('instructions', (None,))[0]}")
check("--per-core: each core's cycles its window's at 1 GHz, as perf's; CPU 1's instructions hold its burner's", ok, figs)

# energy: 20 W split by cycles: a cgroup's energy is 20 W x its cycles
# over the 2 CPUs' 2 GHz of cycles (its reference's cycles: idle CPUs
# count cycles too, at the same clock); IPC and nJ per instruction from
# its reference's figures
en = rows("energy.jsonl")
sysr = en.get(("system", "all"), {})
# the tree moves every 1 ms: its reading at each end of a period may lag
# by one step (20 mJ), of the window's energy and of each cgroup's part
Q = 2 * 0.001 * WATTS
tol = 2.0 + 100 * Q / max(WATTS * sysr.get("interval", 0), 0.01)
ok, f = near("system energy_j vs 20 W x its interval", sysr.get("energy_j", 0), WATTS * sysr.get("interval", 0),
             round(tol, 2))
check("energy: the fake powercap tree's 20 W over the window", ok, [f])
for cg in ("ea", "eb"):
    row, r = en.get(("cgroup", f"/{cg}"), {}), ref(f"energy.ref-{cg}")
    exact(r, f"energy /{cg}")
    if not r or not row:
        check(f"energy /{cg}: a row and a reference", False)
        continue
    want_j = WATTS * r["cycles"][0] / (NCPU * GHZ)
    figs, ok = [], True
    for what, a, b, tol in (
            ("energy_j vs 20 W x reference cycles / 2 GHz", row["energy_j"], want_j, round(2 + 100 * Q / want_j, 2)),
            ("nJ per instruction vs 20 W x its share / reference instructions", row.get("epi_nj", 0),
             want_j * 1e9 / r["instructions"][0], round(2 + 100 * Q / want_j, 2)),
            ("IPC vs the reference's", row.get("ipc", 0), r["instructions"][0] / r["cycles"][0], 1.0)):
        o, f = near(what, a, b, tol)
        ok, figs = ok and o, figs + [f]
    check(f"energy /{cg}: its share by cycles, nJ per instruction and IPC", ok, figs)
ea, eb = en.get(("cgroup", "/ea"), {}), en.get(("cgroup", "/eb"), {})
ra, rb = ref("energy.ref-ea"), ref("energy.ref-eb")
if ea and eb and ra and rb and ea["energy_j"]:
    ok, f = near("energy ratio /eb : /ea vs the references' cycles ratio", eb["energy_j"] / ea["energy_j"],
                 rb["cycles"][0] / ra["cycles"][0],
                 round(2 + 100 * Q * NCPU * GHZ / WATTS * (1 / ra["cycles"][0] + 1 / rb["cycles"][0]), 2))
    check("energy: the split between the cgroups follows their cycles", ok, [f])
else:
    check("energy: the split between the cgroups follows their cycles", False, ["rows or references missing"])

# multiplexing: 9 events on the 3 counters the pinned reference leaves,
# emon-perf's per-cgroup counts against the exact per-task ones
evs = ("cycles,instructions,cycles:u,instructions:u,cycles:k,instructions:k,armv8_pmuv3/cpu_cycles/,"
       "armv8_pmuv3/inst_retired/,armv8_pmuv3/inst_retired/u").split(",")
r = ref("mux.ref")
exact(r, "multiplexing (4 pinned :u and :k counters)")
truth = {}
if len(r) == 4:
    cu, ck, iu, ik = (r[e][0] for e in ("cycles:u", "cycles:k", "instructions:u", "instructions:k"))
    truth = {"cycles": cu + ck, "instructions": iu + ik, "cycles:u": cu, "instructions:u": iu,
             "cycles:k": ck, "instructions:k": ik, "armv8_pmuv3/cpu_cycles/": cu + ck,
             "armv8_pmuv3/inst_retired/": iu + ik, "armv8_pmuv3/inst_retired/u": iu}


def mux_vs(row, other, what):
    """each event of emon-perf's row against other[event]: (count, shown)"""
    ok, figs, muxed = bool(row), [], 0
    for ev in evs:
        v, ratio = row.get("counters", {}).get(ev), row.get("ratio", {}).get(ev, 1.0)  # no "ratio": all 1.0
        pv, shown = other.get(ev, (None, ""))
        if v is None or not pv:
            ok = False
            figs.append(f"{ev}: emon-perf {v}, {what} {pv}")
            continue
        muxed += ratio is not None and ratio < 0.999
        # :k is a few % of a burner's time: 5% of it, or 1% of its :u twin
        twin = other.get(ev.replace(":k", ":u"), (pv,))[0] if ev.endswith(":k") else pv
        err = abs(v - pv) / pv * 100
        ok = ok and abs(v - pv) <= max(0.05 * pv, 0.01 * twin)
        figs.append(f"{ev}: emon-perf {v:.6g} ({100 * ratio:.2f}% of the time) vs {what} {pv:.6g}{shown}: "
                    f"{err:.2f}% (tolerance 5%{' or 1% of :u' if ev.endswith(':k') else ''})")
    return ok, figs, muxed


row = rows("mux.jsonl").get(("cgroup", "/em"), {})
ok, figs, muxed = mux_vs(row, {e: (v, "") for e, v in truth.items()}, "per-task")
check("multiplexing: 9 events on the 3 counters left, each scaled within 5% of the per-task reference (:k: or 1% of :u)",
      ok, figs)
p = perf_csv("mux-perf.perf")
pother = {e: (p[(e, "em")][0], f" ({p[(e, 'em')][1]:.2f}%)") for e in evs if (e, "em") in p}
ok, figs, _ = mux_vs(rows("mux-perf.jsonl").get(("cgroup", "/em"), {}), pother, "perf")
check("multiplexing beside perf --for-each-cgroup (18 events on 7 counters): each within 5% of perf's (:k: or 1% of :u)",
      ok, figs)
check("multiplexing: emon-perf's events ran part of the time (ratio < 1)", muxed >= len(evs) - 2,
      [f"{muxed} of {len(evs)} below 1"])
t = text("mux.txt")
pct = re.findall(r"^\s+[0-9,]+\s+(\S+)\s.*\(([0-9.]+)%\)\s*$", t, re.M)
check("multiplexing: the text shows each event's share of the time as perf does: (NN.NN%)",
      len(pct) == len(evs) and all(0 < float(x) < 100 for _, x in pct), [f"{e} ({x}%)" for e, x in pct][:9])
g, gp = text("group.txt"), text("group.perf")
n, npf = g.count("<not counted>"), gp.count("<not counted>")
check("a group of 8 on 7 counters: every member <not counted>, as perf says it", n == 8 and npf == 8,
      [f"emon-perf: {n} <not counted>, perf: {npf}"])
# libemon: a thread's counts through the library against its own counters
# (tools/selfmon/hw): cycles and instructions as of its last switch, read
# right after a sleep at both ends, so whole slices; cpu-clock and
# switches exact, as on x86 (tests/integration/selfmon.sh). Linux 6.1 has
# no pidfds of threads: serve --threads refuses in one line, exit 1
kv = tuple(int(x) for x in re.findall(r"\d+", text("kernel"))[:2])
serr = text("selfmon-serve.err").strip()
if kv < (6, 9):
    check("libemon: serve --threads on this kernel (no pidfds of threads) exits 1 with one line naming Linux 6.9",
          runs.get("selfmon-serve") == "1" and len(serr.splitlines()) == 1 and "Linux 6.9" in serr, [serr])
else:
    lib = {m[0]: (int(m[1]), int(m[2]), int(m[3])) for m in
           re.findall(r"^event (\S+): lib (\d+) vs ref (\d+) \(exact (\d)\)$", text("selfmon.out"), re.M)}
    check("libemon: the daemon served and the reader ran (serve --threads, tools/selfmon/hw)",
          runs.get("selfmon") == "0" and runs.get("selfmon-serve") == "0" and len(lib) == 4,
          [f"exits: hw {runs.get('selfmon')}, serve {runs.get('selfmon-serve')}; {text('selfmon.out')[-400:]!r} {serr[-300:]!r}"])
    figs, ok = [], len(lib) == 4
    for ev, tol, ex in (("instructions", 1.0, 0), ("cycles", 2.0, 0), ("cpu-clock", 1.0, 1),
                        ("context-switches", 0.0, 1)):
        if ev not in lib:
            continue
        o, f = near(f"{ev} libemon vs the thread's own", lib[ev][0], lib[ev][1], tol)
        ok = ok and o and lib[ev][2] == ex
        figs.append(f"{f}; emon_self_exact {lib[ev][2]} (want {ex})")
    check("libemon on arm64: a thread's instructions (1%) and cycles (2%) as of its last switch, cpu-clock (1%) "
          "and switches (exact) against its own counters, CPU time and status", ok, figs)
print(f"arm64 checks: {FAILS} failed")
sys.exit(1 if FAILS else 0)
